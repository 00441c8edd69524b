"""BicycleGAN on toy 1-D signals: an encoder E maps B to a latent code, the generator G
maps (A, z) to B, and the latent regression loss asks E(G(A, z_random)) to give back
z_random, trained on G alone.

Twin of buggy/bicyclegan_z_loss_after_encoder_generator_backward.py, as BicycleGAN
ships it: backward_EG() keeps the graph (retain_graph=True) because backward_G_alone()
backwards through the generator's output for the random code once more, and that second
backward frees it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

DIM, Z = 12, 3


class BicycleGAN:
    def __init__(self, lambda_z=0.5, lambda_kl=0.01):
        self.net_g = nn.Sequential(nn.Linear(DIM + Z, 32), nn.ReLU(), nn.Linear(32, DIM))
        self.net_e = nn.Sequential(nn.Linear(DIM, 32), nn.ReLU(), nn.Linear(32, 2 * Z))
        self.net_d = nn.Sequential(nn.Linear(DIM, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.opt_g = torch.optim.Adam(self.net_g.parameters(), lr=2e-4)
        self.opt_e = torch.optim.Adam(self.net_e.parameters(), lr=2e-4)
        self.lambda_z, self.lambda_kl = lambda_z, lambda_kl

    def forward(self, real_a, real_b):
        self.real_a, self.real_b = real_a, real_b
        mu, logvar = self.net_e(real_b).chunk(2, dim=1)
        self.mu, self.logvar = mu, logvar
        z_encoded = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        self.fake_b_encoded = self.net_g(torch.cat([real_a, z_encoded], 1))
        self.z_random = torch.randn(real_a.shape[0], Z)
        self.fake_b_random = self.net_g(torch.cat([real_a, self.z_random], 1))
        self.mu2 = self.net_e(self.fake_b_random).chunk(2, dim=1)[0]

    def backward_eg(self):
        loss_gan = F.softplus(-self.net_d(self.fake_b_encoded)).mean() + F.softplus(-self.net_d(self.fake_b_random)).mean()
        loss_l1 = (self.fake_b_encoded - self.real_b).abs().mean() * 10.0
        loss_kl = -0.5 * (1 + self.logvar - self.mu.pow(2) - self.logvar.exp()).sum(1).mean()
        self.loss_g = loss_gan + loss_l1 + self.lambda_kl * loss_kl
        self.loss_g.backward(retain_graph=True)

    def backward_g_alone(self):
        self.loss_z = (self.mu2 - self.z_random).abs().mean() * self.lambda_z
        self.loss_z.backward()

    def update_g_and_e(self):
        self.net_d.requires_grad_(False)
        self.opt_e.zero_grad()
        self.opt_g.zero_grad()
        self.backward_eg()
        if self.lambda_z > 0.0:
            self.net_e.requires_grad_(False)
            self.backward_g_alone()
            self.net_e.requires_grad_(True)
        assert all(p.grad is not None for p in self.net_g.parameters())
        self.opt_e.step()
        self.opt_g.step()
        self.net_d.requires_grad_(True)


def main(steps=3):
    torch.manual_seed(0)
    model = BicycleGAN()
    for step in range(steps):
        real_a = torch.randn(16, DIM)
        model.forward(real_a, real_a.cumsum(1) / DIM)
        model.update_g_and_e()
        print(f"step {step}: loss_G {model.loss_g.item():.3f} loss_z {model.loss_z.item():.3f}")


if __name__ == "__main__":
    main()
