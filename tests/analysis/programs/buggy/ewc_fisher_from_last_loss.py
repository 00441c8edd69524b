"""Elastic Weight Consolidation over two toy tasks.

After training on task A, the diagonal Fisher is estimated from the gradients
of the last training loss that train_task returned.

Real report of this mechanism: https://github.com/TingsongYu/PyTorch-Tutorial-2nd/issues/33
Calling backward() a second time on the same loss raises this error; the maintainer answers
that a second backward through one graph needs retain_graph=True on the first.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_task(seed, n=64):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    w = torch.randn(4, 2, generator=g)
    return x, (x @ w).argmax(1)


def train_task(model, optimizer, data, steps=3, ewc=None, lam=10.0):
    x, y = data
    loss = None
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        if ewc is not None:
            loss = loss + lam * ewc_penalty(model, *ewc)
        loss.backward()
        optimizer.step()
    return loss


def ewc_penalty(model, fisher, anchor):
    total = 0.0
    for name, p in model.named_parameters():
        total = total + (fisher[name] * (p - anchor[name]).pow(2)).sum()
    return total


def fisher_from_loss(model, loss):
    model.zero_grad()
    loss.backward()  # error: [double-backward]
    return {n: p.grad.detach().pow(2) for n, p in model.named_parameters()}


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    task_a, task_b = make_task(1), make_task(2)
    last_loss = train_task(model, optimizer, task_a)
    fisher = fisher_from_loss(model, last_loss)
    anchor = {n: p.detach().clone() for n, p in model.named_parameters()}
    train_task(model, optimizer, task_b, ewc=(fisher, anchor))


if __name__ == "__main__":
    main()
