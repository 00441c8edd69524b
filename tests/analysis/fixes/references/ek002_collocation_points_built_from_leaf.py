"""A physics-informed network fitted to du/dt = -u: the collocation times are an affine map of a
leaf that requires grad, so they carry a small graph built once, before the loop."""

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
times = (2 * torch.rand(24, 1)).requires_grad_()  # a leaf: plain data that requires grad
optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(3):
    u = net(times)
    du_dt = torch.autograd.grad(u.sum(), times, create_graph=True)[0]
    loss = (du_dt + u).pow(2).mean() + (net(torch.zeros(1, 1)) - 1).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.5f}")
