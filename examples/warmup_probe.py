"""Fit a linear probe on frozen-looking features... that are computed once, outside the loop."""

import torch
from torch import nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(6, 12), nn.GELU())
probe = nn.Linear(12, 2)
optimizer = torch.optim.Adam([*backbone.parameters(), *probe.parameters()], lr=1e-3)
inputs = torch.randn(32, 6)
labels = torch.randint(0, 2, (32,))

features = backbone(inputs)
for epoch in range(5):
    logits = probe(features)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
