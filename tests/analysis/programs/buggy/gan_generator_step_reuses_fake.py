"""A vanilla GAN on 2-D Gaussian-mixture data.

The discriminator loss is computed on `fake` without .detach(), and the
generator step then scores the same `fake` again.

Real report of this mechanism: https://github.com/pytorch/examples/issues/116
A commenter reports that leaving out `.detach()` on the fake images when writing the DCGAN
loop gives this error: the generator step runs back through the fake images after the
discriminator's backward freed them.
"""

import math

import torch
import torch.nn as nn

LATENT = 4


def sample_real(n):
    angles = torch.randint(0, 8, (n,)).float() * (2 * math.pi / 8)
    centers = torch.stack([angles.cos(), angles.sin()], dim=1) * 2
    return centers + 0.05 * torch.randn(n, 2)


generator = nn.Sequential(nn.Linear(LATENT, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
discriminator = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()


def train(iterations=3, batch_size=16):
    for it in range(iterations):
        real = sample_real(batch_size)
        z = torch.randn(batch_size, LATENT)
        fake = generator(z)
        ones = torch.ones(batch_size, 1)
        zeros = torch.zeros(batch_size, 1)

        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        opt_d.zero_grad()
        d_loss = bce(discriminator(real), ones) + bce(discriminator(fake), zeros)
        d_loss.backward()
        opt_d.step()

        # (2) update G: maximize log(D(G(z)))
        opt_g.zero_grad()
        g_loss = bce(discriminator(fake), ones)
        g_loss.backward()  # error: [shared-graph-backward]
        opt_g.step()

        print(f"[{it}] D: {d_loss.item():.4f} G: {g_loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train()
