"""Sharpness-aware style update: the second loss reuses the first forward pass after a step."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, targets = torch.randn(6, 4), torch.randn(6, 2)

for step in range(2):
    features = model[0](inputs)
    loss_a = F.mse_loss(model[2](model[1](features)), targets)
    loss_b = features.pow(2).mean()
    optimizer.zero_grad()
    loss_a.backward()
    optimizer.step()
    optimizer.zero_grad()
    loss_b = model[0](inputs).pow(2).mean()
    loss_b.backward()
    optimizer.step()
