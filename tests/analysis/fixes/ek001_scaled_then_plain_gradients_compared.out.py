"""Loss scaling by hand: the scaled loss is backwarded and its gradients kept, unscaled; then, after
`model.zero_grad()`, the same loss is backwarded again as it is, to check that the two agree before
the optimizer steps on the plain gradients."""

import torch
import torch.nn.functional as F
from torch import nn


class StaticScaler:
    def __init__(self, factor):
        self.factor = factor

    def scale(self, loss):
        return loss * self.factor


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = StaticScaler(64.0)
for step in range(3):
    x = torch.randn(16, 6)
    y = torch.randint(0, 3, (16,))
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward(retain_graph=True)
    unscaled = [p.grad / scaler.factor for p in model.parameters()]
    model.zero_grad()
    loss.backward()
    gap = max((p.grad - u).abs().max().item() for p, u in zip(model.parameters(), unscaled))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, largest gap {gap:.2e}")
