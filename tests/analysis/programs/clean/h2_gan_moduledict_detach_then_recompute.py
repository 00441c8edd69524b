"""Non-saturating GAN on 2-D data with both networks in an ``nn.ModuleDict`` and a dataclass
config. The discriminator step uses ``fake.detach()``; the generator step re-scores the same
``fake`` with a fresh discriminator forward pass.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GANConfig:
    z_dim: int = 4
    hidden: int = 32
    batch_size: int = 32
    steps: int = 4
    lr: float = 2e-4
    d_steps: int = 2


def build(cfg):
    return nn.ModuleDict(
        {
            "gen": nn.Sequential(nn.Linear(cfg.z_dim, cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, 2)),
            "disc": nn.Sequential(nn.Linear(2, cfg.hidden), nn.LeakyReLU(0.2), nn.Linear(cfg.hidden, 1)),
        }
    )


def real_batch(n, g):
    return torch.randn(n, 2, generator=g) * torch.tensor([0.5, 1.5]) + torch.tensor([2.0, 0.0])


def train(cfg):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    nets = build(cfg)
    opt_g = torch.optim.Adam(nets["gen"].parameters(), lr=cfg.lr, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(nets["disc"].parameters(), lr=cfg.lr, betas=(0.5, 0.999))
    ones, zeros = torch.ones(cfg.batch_size, 1), torch.zeros(cfg.batch_size, 1)
    for step in range(cfg.steps):
        fake = nets["gen"](torch.randn(cfg.batch_size, cfg.z_dim, generator=g))
        for _ in range(cfg.d_steps):
            real = real_batch(cfg.batch_size, g)
            d_loss = F.binary_cross_entropy_with_logits(nets["disc"](real), ones) + F.binary_cross_entropy_with_logits(
                nets["disc"](fake.detach()), zeros
            )
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
        g_loss = F.binary_cross_entropy_with_logits(nets["disc"](fake), ones)
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        print(step, round(d_loss.item(), 4), round(g_loss.item(), 4))


if __name__ == "__main__":
    train(GANConfig())
