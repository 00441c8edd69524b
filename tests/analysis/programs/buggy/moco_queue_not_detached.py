"""MoCo-v2-style contrastive learning with a momentum key encoder and a negative queue.

Keys come from the momentum encoder (no grad), but the *queries* are enqueued
as negatives, and they carry the query encoder's graph.

Real report of this mechanism: https://github.com/EasonApolo/mstn/issues/4
The maintainer explains that the moving centroids kept for the next iteration are detached
because otherwise "the computing graph will continuously grow as we save last centroid and
use it in the next epoch".
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MoCo(nn.Module):
    def __init__(self, dim=8, K=16, m=0.99, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, dim))
        self.encoder_k = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, dim))
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data.copy_(pq.data)
            pk.requires_grad = False
        self.queue = F.normalize(torch.randn(K, dim), dim=1)

    @torch.no_grad()
    def momentum_update(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data = pk.data * self.m + pq.data * (1.0 - self.m)

    def enqueue(self, feats):
        self.queue = torch.cat([feats, self.queue], dim=0)[: self.K]

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self.momentum_update()
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = (q * k).sum(1, keepdim=True)
        l_neg = q @ self.queue.t()
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self.enqueue(q)
        return F.cross_entropy(logits, labels)


def main():
    torch.manual_seed(0)
    model = MoCo()
    optimizer = torch.optim.SGD(model.encoder_q.parameters(), lr=0.03, momentum=0.9, weight_decay=1e-4)
    for step in range(3):
        x = torch.randn(6, 10)
        loss = model(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    main()
