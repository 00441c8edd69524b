"""A layer with a positive semi-definite weight (``W W^T``), its weight cached for the two uses
of one step only, around the forward and the backward, written by hand."""

import torch
from torch import nn
from torch.nn.utils import parametrize


class Gram(nn.Module):
    def forward(self, a):
        return a @ a.transpose(-1, -2) / a.size(-1)


torch.manual_seed(0)
layer = nn.Linear(4, 4)
parametrize.register_parametrization(layer, "weight", Gram())
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD([*layer.parameters(), *head.parameters()], lr=0.05)
x = torch.randn(32, 4)
y = x[:, :1] * x[:, 1:2]
for step in range(5):
    optimizer.zero_grad()
    with parametrize.cached():
        loss = (head(layer(torch.tanh(layer(x)))) - y).pow(2).mean()
        loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
