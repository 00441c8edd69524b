"""An autoencoder whose encoder and decoder have optimizers of their own: the update loops over the
optimizers and backwards the one reconstruction loss for each, so the second backward finds the
graph the first one freed."""

import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 3), nn.Tanh())
decoder = nn.Linear(3, 6)
enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
dec_opt = torch.optim.SGD(decoder.parameters(), lr=0.05, momentum=0.9)
data = torch.randn(32, 6)

for step in range(4):
    batch = data[(step % 4) * 8 : (step % 4 + 1) * 8]
    loss = (decoder(encoder(batch)) - batch).pow(2).mean()
    for optimizer in (enc_opt, dec_opt):
        optimizer.zero_grad()
    loss.backward()
    for optimizer in (enc_opt, dec_opt):
        optimizer.step()
