"""MAML (Finn et al., 2017) on sine-wave regression with a functional MLP."""

import math

import torch
import torch.nn.functional as F


def init_params(hidden=16):
    def layer(i, o):
        w = torch.empty(o, i)
        torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5))
        return [w.requires_grad_(), torch.zeros(o, requires_grad=True)]

    return layer(1, hidden) + layer(hidden, hidden) + layer(hidden, 1)


def forward(params, x):
    w1, b1, w2, b2, w3, b3 = params
    x = F.relu(F.linear(x, w1, b1))
    x = F.relu(F.linear(x, w2, b2))
    return F.linear(x, w3, b3)


def sample_task():
    amplitude = torch.empty(1).uniform_(0.1, 5.0)
    phase = torch.empty(1).uniform_(0, math.pi)

    def sample(k):
        x = torch.empty(k, 1).uniform_(-5, 5)
        return x, amplitude * torch.sin(x + phase)

    return sample


def inner_adapt(params, x, y, inner_lr, steps):
    fast = params
    for _ in range(steps):
        loss = F.mse_loss(forward(fast, x), y)
        grads = torch.autograd.grad(loss, fast, create_graph=True)
        fast = [p - inner_lr * g for p, g in zip(fast, grads)]
    return fast


def main(meta_iters=3, tasks_per_batch=2, k_shot=5, inner_lr=0.01, inner_steps=2):
    torch.manual_seed(0)
    params = init_params()
    meta_opt = torch.optim.Adam(params, lr=1e-3)
    for it in range(meta_iters):
        meta_opt.zero_grad()
        meta_loss = 0.0
        for _ in range(tasks_per_batch):
            task = sample_task()
            x_s, y_s = task(k_shot)
            x_q, y_q = task(k_shot)
            fast = inner_adapt(params, x_s, y_s, inner_lr, inner_steps)
            meta_loss = meta_loss + F.mse_loss(forward(fast, x_q), y_q)
        meta_loss = meta_loss / tasks_per_batch
        meta_loss.backward()
        meta_opt.step()
        print(f"meta-iter {it}: query loss {meta_loss.item():.4f}")


if __name__ == "__main__":
    main()
