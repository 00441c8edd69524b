"""A GAN step whose two losses share the discriminator's score of the fakes: the discriminator's
backward frees it, its optimizer steps, and the generator's loss backwards through it again."""

import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 5))
discriminator = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)

for step in range(3):
    real = torch.randn(16, 5) + 1.0
    noise = torch.randn(16, 3)
    fakes = generator(noise)
    score_fake = discriminator(fakes)
    score_real = discriminator(real)
    d_loss = -torch.mean(torch.log(score_real) + torch.log(1.0 - score_fake))
    g_loss = torch.mean(torch.log(1.0 - score_fake))

    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
