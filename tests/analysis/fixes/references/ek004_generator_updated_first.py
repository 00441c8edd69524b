"""A GAN that updates the generator first, then scores the same fake batch for the discriminator."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
net_g = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
net_d = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
optim_g = torch.optim.Adam(net_g.parameters(), lr=1e-3)
optim_d = torch.optim.Adam(net_d.parameters(), lr=1e-3)
ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)

for step in range(4):
    real = 2.0 + 0.5 * torch.randn(16, 1)
    fake = net_g(torch.randn(16, 4))

    loss_g = F.binary_cross_entropy_with_logits(net_d(fake), ones)
    optim_g.zero_grad()
    loss_g.backward()
    optim_g.step()

    loss_d = F.binary_cross_entropy_with_logits(net_d(real), ones)
    loss_d = loss_d + F.binary_cross_entropy_with_logits(net_d(fake.detach()), zeros)
    optim_d.zero_grad()
    loss_d.backward()
    optim_d.step()
    print(f"step {step}: G {loss_g.item():.3f}  D {loss_d.item():.3f}")
