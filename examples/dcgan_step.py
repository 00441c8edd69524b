"""One DCGAN-style training loop on toy data; the discriminator step forgets `.detach()`."""

import torch
from torch import nn

latent = 8
generator = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, 4), nn.Tanh())
discriminator = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
criterion = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4)

for step in range(3):
    real = torch.randn(16, 4)
    noise = torch.randn(16, latent)
    fake = generator(noise)

    opt_d.zero_grad()
    d_real = criterion(discriminator(real), torch.ones(16, 1))
    d_fake = criterion(discriminator(fake), torch.zeros(16, 1))
    d_loss = d_real + d_fake
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    g_loss = criterion(discriminator(fake), torch.ones(16, 1))
    g_loss.backward()
    opt_g.step()
    print(f"step {step}: d {d_loss.item():.3f} g {g_loss.item():.3f}")
