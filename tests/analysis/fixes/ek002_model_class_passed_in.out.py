"""A model class is passed in and built once; a method its constructor calls computes a parameter
transform once. Rebuilding the model inside the loop would run, and train nothing (issue 15)."""

import torch
from torch import nn


class AutoEncoder(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.enc = nn.Linear(width, 2)
        self.dec = nn.Linear(2, width)
        self.tie_scale()

    def tie_scale(self):
        self.scale = self.enc.weight.norm()

    def reconstruct(self, x):
        return self.dec(self.enc(x)) * (self.enc.weight.norm())


def fit(net_cls, width=4, steps=3):
    net = net_cls(width)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(steps):
        batch = torch.randn(16, width)
        loss = (net.reconstruct(batch) - batch).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


fit(AutoEncoder)
