"""Meta-SGD on few-shot linear-regression tasks: a functional MLP whose inner-loop step
sizes are learned along with the initial weights.

Report: https://github.com/facebookresearch/higher/issues/32 -- a meta-learner with a
trainable inner-loop step raised "Trying to backward through the graph a second time"
at ``meta_loss.backward()`` in its outer loop, whose state (the printed
``hidden^<outer_i-1>``) carried over from one outer iteration to the next.

Here each outer iteration starts its inner loop from the adapted weights of the
previous one, which are still attached to the previous meta-graph.
"""

import torch
import torch.nn.functional as F


def init_weights():
    w1 = (torch.randn(16, 1) * 0.5).requires_grad_()
    w2 = (torch.randn(1, 16) * 0.5).requires_grad_()
    return [w1, torch.zeros(16, requires_grad=True), w2, torch.zeros(1, requires_grad=True)]


def forward(weights, x):
    w1, b1, w2, b2 = weights
    return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)


def sample_task(k=10):
    slope, bias = torch.randn(2)
    xs = torch.rand(2 * k, 1) * 4 - 2
    ys = slope * xs + bias
    return (xs[:k], ys[:k]), (xs[k:], ys[k:])


def adapt(weights, log_lrs, support, steps=2):
    for _ in range(steps):
        loss = F.mse_loss(forward(weights, support[0]), support[1])
        grads = torch.autograd.grad(loss, weights, create_graph=True)
        weights = [w - lr.exp() * g for w, lr, g in zip(weights, log_lrs, grads)]
    return weights


def main(outer_steps=3, tasks_per_batch=4):
    torch.manual_seed(0)
    init = init_weights()
    log_lrs = [torch.full_like(w, -3.0).requires_grad_() for w in init]
    meta_opt = torch.optim.Adam(init + log_lrs, lr=1e-2)
    weights = init
    for outer in range(outer_steps):
        meta_opt.zero_grad()
        meta_loss = 0.0
        for _ in range(tasks_per_batch):
            support, query = sample_task()
            adapted = adapt(weights, log_lrs, support)
            meta_loss = meta_loss + F.mse_loss(forward(adapted, query[0]), query[1])
        weights = adapted
        meta_loss = meta_loss / tasks_per_batch
        meta_loss.backward()  # error: [carried-graph-backward]
        meta_opt.step()
        print(f"outer {outer} meta loss {meta_loss.item():.4f}")


if __name__ == "__main__":
    main()
