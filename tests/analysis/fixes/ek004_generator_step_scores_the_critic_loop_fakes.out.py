"""A GAN update in the WGAN schedule: the critic steps twice on fresh fakes, then the generator draws new noise
and makes new images, but scores the critic loop's last fakes, whose generator graph the critic's
backward already freed."""

import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
critic = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
optimizer_g = torch.optim.RMSprop(generator.parameters(), lr=1e-3)
optimizer_c = torch.optim.RMSprop(critic.parameters(), lr=1e-3)
data = torch.randn(64, 4)

for step in range(3):
    for k in range(2):
        real = data[k * 16 : (k + 1) * 16]
        optimizer_c.zero_grad()
        z = torch.randn(16, 2)
        fakes = generator(z)
        critic_loss = nn.functional.softplus(critic(fakes)).mean() + nn.functional.softplus(-critic(real)).mean()
        critic_loss.backward()
        optimizer_c.step()

    optimizer_g.zero_grad()
    z = torch.randn(16, 2)
    images = generator(z)
    generator_loss = -critic(images).mean()
    generator_loss.backward()
    optimizer_g.step()
