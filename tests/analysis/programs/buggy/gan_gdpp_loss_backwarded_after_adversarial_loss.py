"""GAN on a ring of Gaussians with the GDPP diversity loss added to the generator.

Report: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/83 -- training with
the GDPP option raised "Trying to backward through the graph a second time": the
generator step backwarded the adversarial loss on the fake batch first, then
backwarded the GDPP loss, which is computed from the discriminator's features of the
same fake batch. The first backward freed the graph both losses share. The thread
quotes the paper: loss_g = loss_adv + loss_gdpp.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def ring(n, modes=8, radius=2.0):
    k = torch.randint(modes, (n,)).float() * (2 * math.pi / modes)
    return torch.stack([radius * k.cos(), radius * k.sin()], 1) + 0.05 * torch.randn(n, 2)


class Discriminator(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(0.2), nn.Linear(hidden, hidden), nn.LeakyReLU(0.2))
        self.score = nn.Linear(hidden, 1)

    def forward(self, x):
        phi = self.features(x)
        return self.score(phi).squeeze(1), phi


def gdpp_loss(phi_fake, phi_real):
    def eig(phi):
        phi = F.normalize(phi, dim=1)
        return torch.linalg.eigvalsh(phi.T @ phi / phi.shape[0])

    fake_vals, real_vals = eig(phi_fake), eig(phi_real)
    return F.mse_loss(fake_vals, real_vals) / real_vals.abs().max()


def main(steps=3, batch=32, z_dim=4):
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(z_dim, 64), nn.ReLU(), nn.Linear(64, 2))
    D = Discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.99))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.99))
    for step in range(steps):
        real = ring(batch)
        fake = G(torch.randn(batch, z_dim))
        real_score, _ = D(real)
        fake_score, _ = D(fake.detach())
        loss_d = F.softplus(-real_score).mean() + F.softplus(fake_score).mean()
        opt_d.zero_grad()
        loss_d.backward()
        opt_d.step()

        fake_score, phi_fake = D(fake)
        with torch.no_grad():
            _, phi_real = D(real)
        loss_adv = F.softplus(-fake_score).mean()
        opt_g.zero_grad()
        loss_adv.backward()
        loss_gdpp = gdpp_loss(phi_fake, phi_real)
        loss_gdpp.backward()  # error: [shared-graph-backward]
        opt_g.step()
        print(f"step {step}: D {loss_d.item():.3f} G {loss_adv.item():.3f} GDPP {loss_gdpp.item():.4f}")


if __name__ == "__main__":
    main()
