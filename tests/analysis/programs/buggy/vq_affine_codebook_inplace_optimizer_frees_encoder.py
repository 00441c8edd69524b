"""VQ-VAE on toy vectors with a vqtorch-style quantiser: the codebook is affinely
reparametrised with the batch statistics of the encoder output, and an in-place
optimiser updates the codebook inside the quantiser's forward; the reconstruction passes
through a straight-through estimator.

Report: https://github.com/minyoungg/vqtorch/issues/3 -- users hit "Trying to backward
through the graph a second time"; setting retain_graph=True on the quantiser's in-place
backward made it work, and the commenter asked whether "the computation graph for z is
deleted after the backward pass by inplace optimizer". It is: the affine parameters are
computed from z with its graph, so the codebook loss's backward runs into the encoder's
graph and frees it, and the main loss then backwards through z again.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AffineVectorQuant(nn.Module):
    def __init__(self, dim, codes=16, lr=1e-2):
        super().__init__()
        self.codebook = nn.Parameter(torch.randn(codes, dim))
        self.inplace_optimizer = torch.optim.SGD([self.codebook], lr=lr)

    def forward(self, z):
        mean, std = z.mean(0), z.std(0) + 1e-5
        codebook = self.codebook * std + mean
        idx = torch.cdist(z.detach(), codebook.detach()).argmin(1)
        z_q = codebook[idx]
        if self.training:
            self.inplace_optimizer.zero_grad()
            F.mse_loss(z_q, z.detach()).backward()
            self.inplace_optimizer.step()
        z_q = z_q.detach()
        return z + (z_q - z).detach(), F.mse_loss(z, z_q), idx


def main(steps=4, dim=6):
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, dim))
    decoder = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 12))
    vq = AffineVectorQuant(dim)
    optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-3)
    for step in range(steps):
        x = torch.randn(64, 12)
        z_q, commitment, idx = vq(encoder(x))
        loss = F.mse_loss(decoder(z_q), x) + 0.25 * commitment
        optimizer.zero_grad()
        loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}, codes used {idx.unique().numel()}")


if __name__ == "__main__":
    main()
