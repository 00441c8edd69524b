"""A GAN step over star-imported models: the discriminator's loss uses `fake.detach()`, so the
generator's backward finds its graph whole."""

import torch
from models import *  # noqa: F403
from torch import nn


def main():
    torch.manual_seed(0)
    generator, discriminator = Generator(), Discriminator()  # noqa: F405
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-3)
    bce = nn.BCEWithLogitsLoss()
    for _ in range(3):
        real = torch.randn(8, 6)
        fake = generator(torch.randn(8, 4))
        d_loss = bce(discriminator(real), torch.ones(8, 1)) + bce(discriminator(fake.detach()), torch.zeros(8, 1))
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = bce(discriminator(fake), torch.ones(8, 1))
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()


if __name__ == "__main__":
    main()
