"""A student policy reads a latent of its depth image; the latent is only refreshed every few
steps, and the steps between read the graph an earlier step's backward freed."""

import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(16, 8), nn.Tanh())
student = nn.Linear(4 + 8, 2)
optimizer = torch.optim.Adam([*encoder.parameters(), *student.parameters()], lr=1e-2)
for step in range(4):
    state, depth, target = torch.randn(6, 4), torch.randn(6, 16), torch.randn(6, 2)
    loss = (student(torch.cat([state, encoder(depth)], -1)) - target).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
