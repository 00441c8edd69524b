"""MoCo-style contrastive learning: a key encoder updated by momentum under no_grad, and a
FIFO queue of keys built from ``torch.cat`` with the keys computed under ``no_grad``.
"""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class MoCo(nn.Module):
    def __init__(self, dim=8, queue_size=32, m=0.99, T=0.2):
        super().__init__()
        self.q_enc = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, dim))
        self.k_enc = copy.deepcopy(self.q_enc).requires_grad_(False)
        self.m, self.T = m, T
        self.register_buffer("queue", F.normalize(torch.randn(queue_size, dim), dim=-1))

    @torch.no_grad()
    def momentum_update(self):
        for pq, pk in zip(self.q_enc.parameters(), self.k_enc.parameters()):
            pk.mul_(self.m).add_(pq.detach(), alpha=1 - self.m)

    def forward(self, x_q, x_k):
        q = F.normalize(self.q_enc(x_q), dim=-1)
        with torch.no_grad():
            self.momentum_update()
            k = F.normalize(self.k_enc(x_k), dim=-1)
        pos = (q * k).sum(-1, keepdim=True)
        neg = q @ self.queue.t()
        logits = torch.cat([pos, neg], dim=1) / self.T
        loss = F.cross_entropy(logits, torch.zeros(len(q), dtype=torch.long))
        self.queue = torch.cat([k, self.queue])[: self.queue.size(0)]
        return loss


def two_views(x, g):
    return x + 0.1 * torch.randn(x.shape, generator=g), x * (1 + 0.1 * torch.randn(x.shape, generator=g))


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = MoCo()
    optimizer = torch.optim.SGD(model.q_enc.parameters(), lr=0.03, momentum=0.9)
    data = torch.randn(64, 16, generator=g)
    for epoch in range(2):
        for i in range(0, 64, 16):
            loss = model(*two_views(data[i : i + 16], g))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, round(loss.item(), 4))


if __name__ == "__main__":
    main()
