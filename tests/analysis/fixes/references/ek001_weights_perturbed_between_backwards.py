"""Sharpness-aware minimization: the optimizer moves the weights up the gradient between two
backwards of one loss, and the second backward was meant to see the moved weights."""

import torch
import torch.nn.functional as F
from torch import nn


class SAM(torch.optim.Optimizer):
    def __init__(self, params, rho=0.05, lr=0.1):
        super().__init__(params, dict(rho=rho))
        self.base = torch.optim.SGD(self.param_groups, lr=lr)

    @torch.no_grad()
    def first_step(self):
        for group in self.param_groups:
            for p in group["params"]:
                e_w = p.grad * group["rho"]
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        self.zero_grad()

    @torch.no_grad()
    def second_step(self):
        for p, saved in self.state.items():
            p.sub_(saved["e_w"])  # back to the weights before the ascent
        self.base.step()
        self.zero_grad()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
optimizer = SAM(model.parameters())
for step in range(3):
    x, y = torch.randn(16, 6), torch.randint(0, 3, (16,))
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.first_step()
    F.cross_entropy(model(x), y).backward()  # the loss at the perturbed weights
    optimizer.second_step()
    print(f"step {step}: loss {loss.item():.4f}")
