"""SimGNN-style graph similarity: a GCN embeds each graph of a pair, attention pools the
nodes, a neural tensor network scores the pair, and the score regresses the normalised
graph edit distance.

Twin of buggy/simgnn_process_batch_retains_graph.py without the retain_graph=True: each
batch's graph is backwarded once and freed right away.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(n, p=0.4):
    adj = (torch.rand(n, n) < p).float().triu(1)
    adj = adj + adj.T + torch.eye(n)
    deg = adj.sum(1).pow(-0.5)
    return deg[:, None] * adj * deg[None, :], F.one_hot(torch.randint(4, (n,)), 4).float()


class SimGNN(nn.Module):
    def __init__(self, hidden=16, k=8):
        super().__init__()
        self.gcn1, self.gcn2 = nn.Linear(4, hidden), nn.Linear(hidden, hidden)
        self.att = nn.Linear(hidden, hidden, bias=False)
        self.ntn = nn.Bilinear(hidden, hidden, k)
        self.score = nn.Sequential(nn.Linear(k, 8), nn.ReLU(), nn.Linear(8, 1))

    def embed(self, adj, feats):
        h = F.relu(adj @ self.gcn1(feats))
        h = adj @ self.gcn2(h)
        context = torch.tanh(self.att(h).mean(0))
        return (torch.sigmoid(h @ context)[:, None] * h).sum(0)

    def forward(self, g1, g2):
        return torch.sigmoid(self.score(F.relu(self.ntn(self.embed(*g1), self.embed(*g2))))).squeeze()


def process_batch(model, optimizer, batch):
    optimizer.zero_grad()
    losses = 0
    for g1, g2, target in batch:
        losses = losses + F.mse_loss(model(g1, g2), target)
    losses.backward()
    assert all(p.grad is not None for p in model.parameters())
    optimizer.step()
    return losses.item()


def main(epochs=3, batch_size=4):
    random.seed(0)
    torch.manual_seed(0)
    pairs = []
    for _ in range(16):
        n1, n2 = random.randint(4, 8), random.randint(4, 8)
        pairs.append((random_graph(n1), random_graph(n2), torch.tensor(abs(n1 - n2) / 8.0)))
    model = SimGNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        random.shuffle(pairs)
        total = sum(process_batch(model, optimizer, pairs[i : i + batch_size]) for i in range(0, len(pairs), batch_size))
        print(f"epoch {epoch}: loss {total:.4f}")


if __name__ == "__main__":
    main()
