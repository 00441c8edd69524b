"""Sharpness-aware minimisation: a ``functools.partial`` closure runs a fresh forward and
backward each time it is called; the SAM step calls it twice (at w and at w + e(w)).
"""

import functools

import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_backward(model, batch):
    x, y = batch
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    return loss


class SAM:
    def __init__(self, params, base_optimizer, rho=0.05):
        self.params = list(params)
        self.base = base_optimizer
        self.rho = rho

    @torch.no_grad()
    def perturb(self):
        norm = torch.sqrt(sum(p.grad.pow(2).sum() for p in self.params if p.grad is not None))
        self.eps = []
        for p in self.params:
            e = p.grad * (self.rho / (norm + 1e-12)) if p.grad is not None else torch.zeros_like(p)
            p.add_(e)
            self.eps.append(e)

    @torch.no_grad()
    def restore(self):
        for p, e in zip(self.params, self.eps):
            p.sub_(e)

    def step(self, closure):
        self.base.zero_grad()
        loss = closure()
        self.perturb()
        self.base.zero_grad()
        closure()
        self.restore()
        self.base.step()
        return loss


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 3))
    sam = SAM(model.parameters(), torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    x, y = torch.randn(48, 6), torch.randint(0, 3, (48,))
    for epoch in range(3):
        for i in range(0, 48, 12):
            closure = functools.partial(forward_backward, model, (x[i : i + 12], y[i : i + 12]))
            loss = sam.step(closure)
        print(epoch, round(loss.item(), 4))


if __name__ == "__main__":
    main()
