"""Beta-VAE whose loss terms live in a dict, each weighted by a per-term coefficient, and
backwarded once, summed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

LOSS_WEIGHTS = {"recon": 1.0, "kl": 0.5, "smooth": 0.1}


class VAE(nn.Module):
    def __init__(self, d=16, z=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 32), nn.ReLU())
        self.mu = nn.Linear(32, z)
        self.logvar = nn.Linear(32, z)
        self.dec = nn.Sequential(nn.Linear(z, 32), nn.ReLU(), nn.Linear(32, d))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def vae_losses(model, x):
    recon, mu, logvar = model(x)
    return {
        "recon": F.mse_loss(recon, x),
        "kl": -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp()),
        "smooth": (recon[:, 1:] - recon[:, :-1]).pow(2).mean(),
    }


def main():
    torch.manual_seed(0)
    x = torch.cumsum(torch.randn(64, 16) * 0.3, dim=1)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for i in range(0, 64, 16):
            optimizer.zero_grad()
            losses = vae_losses(model, x[i : i + 16])
            sum(LOSS_WEIGHTS[name] * value for name, value in losses.items()).backward()
            optimizer.step()
        print(epoch, {k: round(v.item(), 4) for k, v in losses.items()})


if __name__ == "__main__":
    main()
