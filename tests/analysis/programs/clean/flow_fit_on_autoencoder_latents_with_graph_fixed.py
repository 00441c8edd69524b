"""Probabilistic autoencoder: an autoencoder is trained first, then a normalizing flow
is fitted, with its own fit() loop, to the autoencoder's latent codes.

Twin of buggy/flow_fit_on_autoencoder_latents_with_graph.py: the flow is fitted to the
latent codes as data, computed without a graph (the autoencoder is already trained and
the flow's fit must not train it), so each epoch of fit() has a graph of its own.
"""

import math

import torch
import torch.nn as nn


class AffineCouplingFlow(nn.Module):
    def __init__(self, dim, hidden=16):
        super().__init__()
        self.half = dim // 2
        self.net = nn.Sequential(nn.Linear(self.half, hidden), nn.Tanh(), nn.Linear(hidden, 2 * (dim - self.half)))

    def log_prob(self, x):
        x1, x2 = x[:, : self.half], x[:, self.half :]
        log_s, t = self.net(x1).chunk(2, dim=1)
        z2 = (x2 - t) * torch.exp(-log_s)
        z = torch.cat([x1, z2], dim=1)
        base = -0.5 * (z**2).sum(1) - 0.5 * z.shape[1] * math.log(2 * math.pi)
        return base - log_s.sum(1)

    def fit(self, x_train, n_epochs=4, lr=1e-2):
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        for epoch in range(n_epochs):
            optimizer.zero_grad()
            train_loss = -self.log_prob(x_train).mean()
            train_loss.backward()
            assert all(p.grad is not None for p in self.parameters())
            optimizer.step()
            print(f"flow epoch {epoch}: nll {train_loss.item():.3f}")


def main(latent_dim=4):
    torch.manual_seed(0)
    data = torch.randn(128, 12)
    encoder = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, latent_dim))
    decoder = nn.Sequential(nn.Linear(latent_dim, 16), nn.ReLU(), nn.Linear(16, 12))
    optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-2)
    for _ in range(5):
        loss = (decoder(encoder(data)) - data).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        latent = encoder(data)
    flow = AffineCouplingFlow(latent_dim)
    flow.fit(latent)


if __name__ == "__main__":
    main()
