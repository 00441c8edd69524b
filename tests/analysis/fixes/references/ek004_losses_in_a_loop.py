"""Multi-task losses kept in a dict, each backwarded in a loop over the dict."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
heads = nn.ModuleDict({"cls": nn.Linear(12, 3), "reg": nn.Linear(12, 1)})
optimizer = torch.optim.Adam([*trunk.parameters(), *heads.parameters()], lr=1e-3)
weights = {"cls": 1.0, "reg": 0.5}
for step in range(2):
    x, y, z = torch.randn(8, 6), torch.randint(0, 3, (8,)), torch.randn(8, 1)
    features = trunk(x)
    losses = {"cls": F.cross_entropy(heads["cls"](features), y), "reg": F.mse_loss(heads["reg"](features), z)}
    optimizer.zero_grad()
    total = sum(weights[name] * loss for name, loss in losses.items())
    total.backward()
    optimizer.step()
