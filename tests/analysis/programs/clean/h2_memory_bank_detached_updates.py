"""Instance discrimination with a memory bank: the bank is written with index assignment
under ``torch.no_grad()`` from detached embeddings, so it never carries a graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MemoryBank:
    def __init__(self, size, dim, momentum=0.5):
        self.bank = F.normalize(torch.randn(size, dim), dim=-1)
        self.momentum = momentum

    def logits(self, z, temperature=0.1):
        return z @ self.bank.t() / temperature

    @torch.no_grad()
    def update(self, idx, z):
        mixed = self.momentum * self.bank[idx] + (1 - self.momentum) * z.detach()
        self.bank[idx] = F.normalize(mixed, dim=-1)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


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
            z = encoder(data[idx] + 0.1 * torch.randn(12, 16, generator=g))
            loss = F.cross_entropy(memory.logits(z), idx)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            memory.update(idx, z)
        print(f"epoch {epoch}: {loss.item():.4f}")
    assert not memory.bank.requires_grad


if __name__ == "__main__":
    main()
