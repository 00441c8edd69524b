"""A sweep over autoencoder widths: ``fit`` receives the model class and builds the model
itself, so ``net = net_cls(width)`` creates a module whose parameters are leaves; every
step builds a new graph (negative for issue 13, mechanism 1: a callee's name is not
evidence of a graph).
"""

import torch
import torch.nn as nn


class TiedAutoencoder(nn.Module):
    def __init__(self, width, d_in=8):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(width, d_in) * 0.3)
        self.bias = nn.Parameter(torch.zeros(width))

    def encode(self, x):
        return torch.tanh(x @ self.weight.t() + self.bias)

    def reconstruct(self, x):
        return self.encode(x) @ self.weight


class DeepAutoencoder(nn.Module):
    def __init__(self, width, d_in=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, width), nn.ReLU())
        self.dec = nn.Linear(width, d_in)

    def reconstruct(self, x):
        return self.dec(self.enc(x))


def fit(net_cls, width=4, steps=6):
    net = net_cls(width)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    history = []
    for _ in range(steps):
        batch = torch.randn(16, 8)
        loss = (net.reconstruct(batch) - batch).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.item())
    return history


def main():
    torch.manual_seed(0)
    for net_cls in (TiedAutoencoder, DeepAutoencoder):
        for width in (2, 6):
            history = fit(net_cls, width)
            print(net_cls.__name__, width, [round(h, 3) for h in history])


if __name__ == "__main__":
    main()
