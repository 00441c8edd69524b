"""A GAN step whose two losses share the discriminator's score of fakes made from noise drawn in the
same expression. Summing the losses into one backward would send the discriminator loss's gradient
into the generator's step, which `opt_g.zero_grad()` clears in the program (here the two cancel, and
the generator would not learn); the score cannot be recomputed without drawing other noise: no fix
is offered."""

import torch
from torch import nn

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 5))
discriminator = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)

for step in range(3):
    real = torch.randn(16, 5) + 1.0
    fakes = generator(torch.randn(16, 3))
    score_fake = discriminator(fakes)
    score_real = discriminator(real)
    d_loss = -torch.mean(torch.log(score_real) + torch.log(1.0 - score_fake))
    g_loss = torch.mean(torch.log(1.0 - score_fake))

    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    g_loss.backward()  # error: [shared-graph-backward]
    opt_g.step()
