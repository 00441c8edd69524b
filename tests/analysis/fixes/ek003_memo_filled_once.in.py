"""A model that memoises a factor of its own parameters on the first forward and reuses it."""

import torch
from torch import nn


class Smoother(nn.Module):
    def __init__(self):
        super().__init__()
        self.points = nn.Parameter(torch.linspace(-1, 1, 6))
        self.weights = nn.Parameter(torch.zeros(6))
        self._memo = {}

    def kernel(self):
        if "k" not in self._memo:
            self._memo["k"] = torch.exp(-(self.points[:, None] - self.points[None, :]).pow(2))
        return self._memo["k"]

    def forward(self, x):
        basis = torch.exp(-(x[:, None] - self.points[None, :]).pow(2))
        return basis @ (self.kernel() @ self.weights)


torch.manual_seed(0)
model = Smoother()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.linspace(-2, 2, 20)
y = torch.sin(2 * x)
for i in range(4):
    opt.zero_grad()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    opt.step()
    print(f"iteration {i}: loss {loss.item():.4f}")
