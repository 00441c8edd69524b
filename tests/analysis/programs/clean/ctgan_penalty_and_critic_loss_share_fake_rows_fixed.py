"""CTGAN-style tabular GAN: a conditional generator produces rows (one-hot categorical
column plus a continuous column) and a PacGAN-less critic with gradient penalty scores
them.

Twin of buggy/ctgan_penalty_and_critic_loss_share_fake_rows.py, as CTGAN ships it and
the maintainer explains: the penalty's backward keeps the graph (retain_graph=True)
because the critic's loss backwards through the same generated rows right after.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

N_CAT, Z = 4, 8


def apply_activate(raw):
    return torch.cat([F.gumbel_softmax(raw[:, :N_CAT], tau=0.2), torch.tanh(raw[:, N_CAT:])], dim=1)


def gradient_penalty(critic, real, fake, lambda_=10.0):
    alpha = torch.rand(real.shape[0], 1)
    interpolates = alpha * real + (1 - alpha) * fake
    grads = torch.autograd.grad(critic(interpolates).sum(), interpolates, create_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean() * lambda_


def real_rows(n):
    cat = torch.randint(N_CAT, (n,))
    value = torch.tanh(cat.float() - 1.5 + 0.1 * torch.randn(n))
    return torch.cat([F.one_hot(cat, N_CAT).float(), value[:, None]], dim=1)


def main(steps=4, batch=32):
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(Z + N_CAT, 64), nn.ReLU(), nn.Linear(64, N_CAT + 1))
    critic = nn.Sequential(nn.Linear(2 * (N_CAT + 1), 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(critic.parameters(), lr=2e-4, betas=(0.5, 0.9))
    for step in range(steps):
        real = real_rows(batch)
        c1 = F.one_hot(torch.randint(N_CAT, (batch,)), N_CAT).float()
        fakeact = apply_activate(generator(torch.cat([torch.randn(batch, Z), c1], dim=1)))
        fake_cat = torch.cat([fakeact, c1 @ torch.ones(N_CAT, N_CAT + 1) / N_CAT], dim=1)
        real_cat = torch.cat([real, c1 @ torch.ones(N_CAT, N_CAT + 1) / N_CAT], dim=1)
        y_fake, y_real = critic(fake_cat), critic(real_cat)
        pen = gradient_penalty(critic, real_cat, fake_cat)
        loss_d = -(torch.mean(y_real) - torch.mean(y_fake))
        opt_d.zero_grad()
        pen.backward(retain_graph=True)
        loss_d.backward()
        assert all(p.grad is not None for p in critic.parameters())
        opt_d.step()

        fakeact = apply_activate(generator(torch.cat([torch.randn(batch, Z), c1], dim=1)))
        loss_g = -torch.mean(critic(torch.cat([fakeact, c1 @ torch.ones(N_CAT, N_CAT + 1) / N_CAT], dim=1)))
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        print(f"step {step}: loss_d {loss_d.item():.3f} loss_g {loss_g.item():.3f}")


if __name__ == "__main__":
    main()
