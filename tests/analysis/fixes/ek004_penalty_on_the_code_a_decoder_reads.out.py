"""A sparse autoencoder: the reconstruction loss and an L1 penalty on the code the decoder
reads are backwarded one after the other."""

import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(12, 6), nn.ReLU())
decoder = nn.Linear(6, 12)
opt = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-2)
data = torch.randn(32, 12)
for step in range(4):
    opt.zero_grad()
    code = encoder(data)
    reconstruction = (decoder(code) - data).pow(2).mean()
    sparsity = 1e-2 * code.abs().mean()
    (reconstruction + sparsity).backward()
    opt.step()
    print(f"step {step}: reconstruction {reconstruction.item():.4f} sparsity {sparsity.item():.4f}")
