"""A layer with a positive semi-definite weight (``W W^T``) trained under one
``parametrize.cached()`` context around the whole loop: the weight the first step computed is
given to every later step (https://github.com/pytorch/pytorch/issues/71062)."""

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
    with parametrize.cached():
        hidden = torch.tanh(layer(x))
        loss = (head(layer(hidden)) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")
