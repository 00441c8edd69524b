"""Non-saturating GAN loss with lazy R1 regularisation (StyleGAN2-style) on toy vectors.

Every `r1_every` iterations the discriminator gets an extra, separately backpropagated R1 term
computed from a fresh forward pass on real data with create_graph=True.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def r1_penalty(D, real):
    real = real.detach().requires_grad_(True)
    logits = D(real)
    (grad,) = torch.autograd.grad(logits.sum(), real, create_graph=True)
    return grad.pow(2).sum(1).mean()


def main(iterations=4, r1_every=2, gamma=10.0, batch=8):
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 32), nn.LeakyReLU(0.2), nn.Linear(32, 6))
    D = nn.Sequential(nn.Linear(6, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.0, 0.99))

    for it in range(iterations):
        real = torch.randn(batch, 6) * 0.5 + 1.0

        # discriminator: main loss
        fake = G(torch.randn(batch, 4))
        d_loss = F.softplus(D(fake.detach())).mean() + F.softplus(-D(real)).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()

        # discriminator: lazy R1 regularisation
        if it % r1_every == 0:
            penalty = r1_penalty(D, real)
            opt_d.zero_grad()
            (gamma / 2 * penalty * r1_every).backward()
            opt_d.step()

        # generator
        g_loss = F.softplus(-D(fake)).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        print(f"it {it}: d {d_loss.item():.4f} g {g_loss.item():.4f}")


if __name__ == "__main__":
    main()
