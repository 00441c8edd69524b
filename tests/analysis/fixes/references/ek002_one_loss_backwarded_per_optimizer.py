"""Written by hand: both optimizers step on the gradient of the one loss, backwarded once."""

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
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    loss.backward()
    enc_opt.step()
    dec_opt.step()
