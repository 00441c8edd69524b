"""One GAN training loop; the discriminator step uses the generator's output without detach()."""

import torch
import torch.nn as nn

torch.manual_seed(0)
latent = 4
generator = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, 2))
discriminator = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
criterion = nn.BCEWithLogitsLoss()
real = torch.randn(32, 2) * 0.5 + 1.0
ones = torch.ones(32, 1)
zeros = torch.zeros(32, 1)

for step in range(3):
    noise = torch.randn(32, latent)
    fake = generator(noise)

    opt_d.zero_grad()
    loss_d = criterion(discriminator(real), ones) + criterion(discriminator(fake.detach()), zeros)
    loss_d.backward()
    opt_d.step()

    opt_g.zero_grad()
    loss_g = criterion(discriminator(fake), ones)
    loss_g.backward()
    opt_g.step()
    print(f"step {step}: D {loss_d.item():.3f}  G {loss_g.item():.3f}")
