"""MAML on sine-wave regression with a weight-normalised network and a hand-written
functional forward for the adapted weights.

Report: https://github.com/facebookresearch/higher/issues/14 -- "Inner loop
incompatible with weight_norm": the outer real_loss.backward() raised "Trying to
backward through the graph a second time". The commenter traced it to weight_norm's
`weight` attribute, which the old weight_norm computes from weight_g and weight_v in a
forward pre-hook (and once when it is applied), and which a functional forward that does
not go through the module's __call__ never recomputes. Here the functional forward reads
that attribute: it still holds the graph built when weight_norm was applied, before
training, and every meta-update backwards through it.
"""

import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore", category=FutureWarning)


def sine_task(n=10):
    amp, phase = 0.1 + 4.9 * torch.rand(1), math.pi * torch.rand(1)
    x = 10 * torch.rand(2 * n, 1) - 5
    y = amp * torch.sin(x + phase)
    return (x[:n], y[:n]), (x[n:], y[n:])


class Regressor(nn.Module):
    def __init__(self, hidden=40):
        super().__init__()
        self.hidden = nn.utils.weight_norm(nn.Linear(1, hidden))
        self.out = nn.Linear(hidden, 1)

    def fast_weights(self):
        return {"w1": self.hidden.weight, "b1": self.hidden.bias, "w2": self.out.weight, "b2": self.out.bias}

    @staticmethod
    def functional(x, w):
        return F.linear(F.relu(F.linear(x, w["w1"], w["b1"])), w["w2"], w["b2"])


def main(meta_steps=4, tasks_per_step=3, inner_lr=0.01):
    torch.manual_seed(0)
    model = Regressor()
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(meta_steps):
        meta_loss = 0.0
        for _ in range(tasks_per_step):
            (xs, ys), (xq, yq) = sine_task()
            weights = model.fast_weights()
            support_loss = F.mse_loss(model.functional(xs, weights), ys)
            grads = torch.autograd.grad(support_loss, list(weights.values()), create_graph=True)
            adapted = {k: w - inner_lr * g for (k, w), g in zip(weights.items(), grads)}
            meta_loss = meta_loss + F.mse_loss(model.functional(xq, adapted), yq)
        meta_opt.zero_grad()
        (meta_loss / tasks_per_step).backward()  # error: [pre-loop-graph-backward]
        meta_opt.step()
        print(f"meta step {step}: query loss {meta_loss.item() / tasks_per_step:.3f}")


if __name__ == "__main__":
    main()
