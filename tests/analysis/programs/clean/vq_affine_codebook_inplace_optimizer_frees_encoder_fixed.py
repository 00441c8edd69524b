"""VQ-VAE on toy vectors with a vqtorch-style quantiser: the codebook is affinely
reparametrised with the batch statistics of the encoder output, and an in-place
optimiser updates the codebook inside the quantiser's forward; the reconstruction passes
through a straight-through estimator.

Twin of buggy/vq_affine_codebook_inplace_optimizer_frees_encoder.py with the change the
report found to work: the quantiser's in-place backward keeps the graph
(retain_graph=True), so the main loss can still backward through the encoder's output.
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
            F.mse_loss(z_q, z.detach()).backward(retain_graph=True)
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
        loss.backward()
        assert all(p.grad is not None for p in encoder.parameters())
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}, codes used {idx.unique().numel()}")


if __name__ == "__main__":
    main()
