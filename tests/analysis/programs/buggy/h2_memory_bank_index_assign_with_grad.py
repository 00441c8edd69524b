"""Instance discrimination with a memory bank (Wu et al. 2018 style).

Each step writes the fresh embeddings into the bank with index assignment -- but
without detaching, so the bank now carries this step's graph into the next one.

Real report of this mechanism: https://github.com/EasonApolo/mstn/issues/4
The maintainer explains that the moving centroids kept for the next iteration are detached
because otherwise "the computing graph will continuously grow as we save last centroid and
use it in the next epoch".
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, d_in=16, d_out=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, d_out))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


class MemoryBank:
    def __init__(self, size, dim, momentum=0.5):
        self.bank = F.normalize(torch.randn(size, dim), dim=-1)
        self.momentum = momentum

    def logits(self, z, temperature=0.1):
        return z @ self.bank.t() / temperature

    def update(self, idx, z):
        mixed = self.momentum * self.bank[idx] + (1 - self.momentum) * z
        self.bank[idx] = F.normalize(mixed, dim=-1)


def augment(x, g):
    return x + 0.1 * torch.randn(x.shape, generator=g)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = torch.randn(48, 16, generator=g)
    encoder = Encoder()
    memory = MemoryBank(48, 8)
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(2):
        perm = torch.randperm(48, generator=g)
        for i in range(0, 48, 12):
            idx = perm[i : i + 12]
            z = encoder(augment(data[idx], g))
            loss = F.cross_entropy(memory.logits(z), idx)
            optimizer.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            optimizer.step()
            memory.update(idx, z)
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
