"""Elastic Weight Consolidation on two sequential toy tasks; the Fisher diagonal is estimated from
fresh per-sample forward passes after training task A.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_task(seed, n=32):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, generator=g)
    return x, (x @ torch.randn(4, 2, generator=g)).argmax(1)


def estimate_fisher(model, x, samples=8):
    fisher = {n: torch.zeros_like(p) for n, p in model.named_parameters()}
    model.eval()
    for i in range(samples):
        model.zero_grad()
        log_probs = F.log_softmax(model(x[i:i + 1]), dim=1)
        label = log_probs.argmax(1)
        F.nll_loss(log_probs, label).backward()
        for n, p in model.named_parameters():
            fisher[n] += p.grad.detach().pow(2) / samples
    return fisher


def train_task(model, optimizer, data, steps=3, penalty=None):
    x, y = data
    model.train()
    for _ in range(steps):
        loss = F.cross_entropy(model(x), y)
        if penalty is not None:
            loss = loss + penalty(model)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main(lam=50.0):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    task_a, task_b = make_task(1), make_task(2)
    print("task A loss", train_task(model, optimizer, task_a))
    fisher = estimate_fisher(model, task_a[0])
    anchor = {n: p.detach().clone() for n, p in model.named_parameters()}

    def ewc_penalty(m):
        return lam / 2 * sum((fisher[n] * (p - anchor[n]).pow(2)).sum() for n, p in m.named_parameters())

    print("task B loss", train_task(model, optimizer, task_b, penalty=ewc_penalty))


if __name__ == "__main__":
    main()
