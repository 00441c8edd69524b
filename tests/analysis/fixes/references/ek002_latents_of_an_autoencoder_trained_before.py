"""Two-stage latent model: an autoencoder is trained first, then a density model is fitted to the
encoder's latents, computed once without a graph: the second stage trains the density model only."""

import torch
from torch import nn


def fit_density(latents, epochs=4):
    mean = nn.Parameter(torch.zeros(latents.shape[1]))
    log_scale = nn.Parameter(torch.zeros(latents.shape[1]))
    optimizer = torch.optim.Adam([mean, log_scale], lr=0.05)
    for epoch in range(epochs):
        optimizer.zero_grad()
        z = (latents - mean) * torch.exp(-log_scale)
        nll = (0.5 * z.pow(2) + log_scale).sum(1).mean()
        nll.backward()
        optimizer.step()
        print(f"density epoch {epoch}: nll {nll.item():.4f}")
    return mean, log_scale


torch.manual_seed(0)
data = torch.randn(64, 10)
encoder = nn.Sequential(nn.Linear(10, 12), nn.ReLU(), nn.Linear(12, 3))
decoder = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 10))
optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=0.01)
for _ in range(4):
    optimizer.zero_grad()
    loss = (decoder(encoder(data)) - data).pow(2).mean()
    loss.backward()
    optimizer.step()
with torch.no_grad():
    latents = encoder(data)
fit_density(latents)
