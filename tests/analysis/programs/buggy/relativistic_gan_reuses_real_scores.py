"""Relativistic average GAN (RaGAN) on 2-D points: both the discriminator and the
generator losses compare real scores with the mean fake score and vice versa.

Report: https://github.com/Zhaoyi-Yan/Shift-Net_pytorch/issues/34 -- the ``re_avg_gan``
option raised "Trying to backward through the graph a second time" (the issue gives only
the message). A relativistic generator loss needs the real scores too; taking them from
the discriminator step backwards through the graph that step's backward freed.

Here ``pred_real`` from the discriminator step is reused by the generator loss.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def real_points(n):
    centers = torch.tensor([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    return centers[torch.randint(0, 3, (n,))] + 0.1 * torch.randn(n, 2)


def main(iters=3, batch=32, nz=3):
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(nz, 32), nn.ReLU(), nn.Linear(32, 2))
    disc = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4, betas=(0.5, 0.9))
    ones, zeros = torch.ones(batch, 1), torch.zeros(batch, 1)
    for it in range(iters):
        fake = gen(torch.randn(batch, nz))

        opt_d.zero_grad()
        pred_real = disc(real_points(batch))
        pred_fake = disc(fake.detach())
        loss_d = (
            F.binary_cross_entropy_with_logits(pred_real - pred_fake.mean(), ones)
            + F.binary_cross_entropy_with_logits(pred_fake - pred_real.mean(), zeros)
        ) / 2
        loss_d.backward()
        opt_d.step()

        opt_g.zero_grad()
        pred_fake = disc(fake)
        loss_g = (
            F.binary_cross_entropy_with_logits(pred_real - pred_fake.mean(), zeros)
            + F.binary_cross_entropy_with_logits(pred_fake - pred_real.mean(), ones)
        ) / 2
        loss_g.backward()  # error: [shared-graph-backward]
        opt_g.step()
        print(f"iter {it} loss_d {loss_d.item():.4f} loss_g {loss_g.item():.4f}")


if __name__ == "__main__":
    main()
