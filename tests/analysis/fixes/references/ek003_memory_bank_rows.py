"""A memory bank of embeddings, one row per sample, overwritten with the fresh embeddings."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MemoryBank:
    def __init__(self, size, dim):
        self.bank = F.normalize(torch.randn(size, dim), dim=-1)

    def update(self, idx, z):
        with torch.no_grad():
            self.bank[idx] = F.normalize(z, dim=-1)


torch.manual_seed(0)
encoder = nn.Linear(6, 4)
optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
memory = MemoryBank(12, 4)
data = torch.randn(12, 6)
for step in range(3):
    idx = torch.arange(4 * (step % 3), 4 * (step % 3) + 4)
    z = encoder(data[idx])
    loss = F.cross_entropy(z @ memory.bank.t() / 0.1, idx)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    memory.update(idx, z)
