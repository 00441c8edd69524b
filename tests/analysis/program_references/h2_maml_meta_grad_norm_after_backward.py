"""MAML on sine regression with torch.func.functional_call.

The inner loop uses ``autograd.grad(create_graph=True)``; after the outer
``meta_loss.backward()`` the script measures the meta-gradient norm from what that backward
accumulated in ``.grad`` (cleared at the start of each meta step).
"""

import math

import torch
import torch.nn as nn
from torch.func import functional_call


def sample_task(g):
    amp = 0.1 + 4.9 * torch.rand(1, generator=g).item()
    phase = math.pi * torch.rand(1, generator=g).item()

    def draw(n):
        x = 10 * torch.rand(n, 1, generator=g) - 5
        return x, amp * torch.sin(x + phase)

    return draw


def inner_adapt(model, params, x, y, inner_lr, steps):
    for _ in range(steps):
        loss = nn.functional.mse_loss(functional_call(model, params, (x,)), y)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
        params = {name: p - inner_lr * g for (name, p), g in zip(params.items(), grads)}
    return params


def meta_train(model, meta_steps=3, tasks_per_batch=3, inner_lr=0.01, inner_steps=1):
    g = torch.Generator().manual_seed(0)
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    norms = []
    for it in range(meta_steps):
        meta_opt.zero_grad()
        meta_loss = 0.0
        for _ in range(tasks_per_batch):
            draw = sample_task(g)
            xs, ys = draw(5)
            xq, yq = draw(5)
            params = dict(model.named_parameters())
            fast = inner_adapt(model, params, xs, ys, inner_lr, inner_steps)
            meta_loss = meta_loss + nn.functional.mse_loss(functional_call(model, fast, (xq,)), yq)
        meta_loss = meta_loss / tasks_per_batch
        meta_loss.backward()
        norms.append(torch.sqrt(sum((p.grad**2).sum() for p in model.parameters())).item())
        meta_opt.step()
    return norms


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(1, 20), nn.ReLU(), nn.Linear(20, 20), nn.ReLU(), nn.Linear(20, 1))
    print(meta_train(net))
