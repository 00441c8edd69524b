"""VQ-VAE-style autoencoder with a projected (factorised) codebook.

The projected codebook is computed at the start of each epoch, outside the
batch loop, so all batches of the epoch share it.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class VQAutoencoder(nn.Module):
    def __init__(self, d_in=12, d_latent=4, n_codes=8, d_code=3, beta=0.25):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, 16), nn.ReLU(), nn.Linear(16, d_latent))
        self.decoder = nn.Sequential(nn.Linear(d_latent, 16), nn.ReLU(), nn.Linear(16, d_in))
        self.codebook = nn.Parameter(torch.randn(n_codes, d_code))
        self.code_proj = nn.Linear(d_code, d_latent)
        self.beta = beta

    def project_codebook(self):
        return self.code_proj(self.codebook)

    def forward(self, x, codes):
        z_e = self.encoder(x)
        dist = torch.cdist(z_e, codes)
        idx = dist.argmin(1)
        z_q = codes[idx]
        commit = F.mse_loss(z_e, z_q.detach())
        codebook_loss = F.mse_loss(z_q, z_e.detach())
        z_st = z_e + (z_q - z_e).detach()
        recon = self.decoder(z_st)
        return recon, codebook_loss + self.beta * commit


def train(model, data, epochs=2, batch_size=8, lr=2e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(epochs):
        codes = model.project_codebook()
        perm = torch.randperm(len(data))
        for start in range(0, len(data), batch_size):
            x = data[perm[start : start + batch_size]]
            recon, vq_loss = model(x, codes)
            loss = F.mse_loss(recon, x) + vq_loss
            opt.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    train(VQAutoencoder(), torch.randn(24, 12))
