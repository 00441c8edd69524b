"""A GAN update in the WGAN-GP schedule: the critic steps twice on fakes made from fresh noise, then the generator makes new
images from new noise, in one expression, but scores the critic loop's last fakes, whose generator graph
the critic's backward already freed."""

import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
critic = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
optimizer_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
optimizer_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
data = torch.randn(64, 4)

for step in range(3):
    for k in range(2):
        real = data[k * 16 : (k + 1) * 16]
        optimizer_c.zero_grad()
        fakes = generator(torch.randn(16, 2))
        nn.functional.softplus(-critic(real)).mean().backward()
        nn.functional.softplus(critic(fakes)).mean().backward()
        optimizer_c.step()

    optimizer_g.zero_grad()
    images = generator(torch.randn(16, 2))
    generator_loss = -critic(images).mean()
    generator_loss.backward()
    optimizer_g.step()
