"""Unpaired image-to-image translation (CycleGAN-style) on toy 8x8 images: two
generators and two discriminators; every step computes the generators' adversarial and
cycle losses, backwards them, then the discriminators' losses on detached fakes.

Report: https://github.com/jolibrain/joliGEN/pull/281 -- "fix: no need for retain_graph
to be True on losses": the losses were backwarded with retain_graph=True although each
one is backwarded once, and the pull request removed it. (A later pull request,
https://github.com/jolibrain/joliGEN/pull/326, put it back for the multimodal GAN only,
whose encoder loss goes through the generator's graph again.) Here, as before the fix,
every backward keeps its graph although nothing goes through it again.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def generator():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1), nn.Tanh())


def discriminator():
    return nn.Sequential(nn.Conv2d(1, 8, 4, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 3, padding=1))


def main(steps=2, lambda_cyc=10.0):
    torch.manual_seed(0)
    g_ab, g_ba, d_a, d_b = generator(), generator(), discriminator(), discriminator()
    opt_g = torch.optim.Adam([*g_ab.parameters(), *g_ba.parameters()], lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam([*d_a.parameters(), *d_b.parameters()], lr=2e-4, betas=(0.5, 0.999))
    for step in range(steps):
        real_a, real_b = torch.rand(4, 1, 8, 8) * 2 - 1, -(torch.rand(4, 1, 8, 8) * 2 - 1)
        fake_b, fake_a = g_ab(real_a), g_ba(real_b)
        loss_gan = F.mse_loss(d_b(fake_b), torch.ones(4, 1, 4, 4)) + F.mse_loss(d_a(fake_a), torch.ones(4, 1, 4, 4))
        loss_cycle = (g_ba(fake_b) - real_a).abs().mean() + (g_ab(fake_a) - real_b).abs().mean()
        loss_g = loss_gan + lambda_cyc * loss_cycle
        opt_g.zero_grad()
        loss_g.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        opt_g.step()

        loss_d = 0.5 * (
            F.mse_loss(d_b(real_b), torch.ones(4, 1, 4, 4))
            + F.mse_loss(d_b(fake_b.detach()), torch.zeros(4, 1, 4, 4))
            + F.mse_loss(d_a(real_a), torch.ones(4, 1, 4, 4))
            + F.mse_loss(d_a(fake_a.detach()), torch.zeros(4, 1, 4, 4))
        )
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()
        print(f"step {step}: G {loss_g.item():.3f} D {loss_d.item():.3f}")


if __name__ == "__main__":
    main()
