"""MAML with torch.func.functional_call: inner steps with ``create_graph=True``, the
meta-gradient norm read with ``autograd.grad(..., retain_graph=True)`` before the one
``meta_loss.backward()``.
"""

import math

import torch
import torch.nn as nn
from torch.func import functional_call


def sine_task(g):
    amp = 0.5 + 4.5 * torch.rand(1, generator=g).item()
    phase = math.pi * torch.rand(1, generator=g).item()

    def sample(n):
        x = 10 * torch.rand(n, 1, generator=g) - 5
        return x, amp * torch.sin(x + phase)

    return sample


def adapt(model, params, x, y, lr, steps):
    for _ in range(steps):
        loss = nn.functional.mse_loss(functional_call(model, params, (x,)), y)
        grads = torch.autograd.grad(loss, tuple(params.values()), create_graph=True)
        params = {name: w - lr * g for (name, w), g in zip(params.items(), grads)}
    return params


def main(meta_iters=3, n_tasks=3):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for it in range(meta_iters):
        losses = []
        for _ in range(n_tasks):
            sample = sine_task(g)
            (xs, ys), (xq, yq) = sample(5), sample(5)
            fast = adapt(model, dict(model.named_parameters()), xs, ys, lr=0.01, steps=2)
            losses.append(nn.functional.mse_loss(functional_call(model, fast, (xq,)), yq))
        meta_loss = torch.stack(losses).mean()
        grads = torch.autograd.grad(meta_loss, list(model.parameters()), retain_graph=True)
        norm = torch.sqrt(sum(gr.pow(2).sum() for gr in grads))
        meta_opt.zero_grad()
        meta_loss.backward()
        meta_opt.step()
        print(f"iter {it}: meta loss {meta_loss.item():.4f} meta grad norm {norm.item():.4f}")


if __name__ == "__main__":
    main()
