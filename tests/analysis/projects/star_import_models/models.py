"""Models imported with `from models import *`, as PyTorch-GAN's implementations do."""

from torch import nn


class Generator(nn.Module):
    def __init__(self, latent=4, out=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, 16), nn.ReLU(), nn.Linear(16, out))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, width=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(width, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)
