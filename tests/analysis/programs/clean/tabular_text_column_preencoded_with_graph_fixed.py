"""Tabular regression with a text column pre-encoded once by a hashing embedder whose
output is detached, the fix of https://github.com/pyg-team/pytorch-frame/pull/229 (the
embedder is pre-encoding, not part of the trained network).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class HashTextEmbedder:
    def __init__(self, bins=32, dim=6):
        self.bins = bins
        self.embedding = nn.Embedding(bins, dim)

    def __call__(self, sentences):
        idx = torch.tensor([sum(map(ord, s)) % self.bins for s in sentences])
        return self.embedding(idx).detach()


class Regressor(nn.Module):
    def __init__(self, n_numeric=4, text_dim=6):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(n_numeric + text_dim, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, numeric, text):
        return self.mlp(torch.cat([numeric, text], dim=1)).squeeze(-1)


def make_table(n=40):
    words = ["red shoe", "blue hat", "green coat", "old lamp", "new desk"]
    names = [words[i % len(words)] for i in range(n)]
    numeric = torch.randn(n, 4)
    target = numeric[:, 0] * 2 + torch.tensor([len(s) for s in names], dtype=torch.float) / 5
    return names, numeric, target


def main(epochs=3, batch=10):
    torch.manual_seed(0)
    names, numeric, target = make_table()
    text = HashTextEmbedder()(names)
    model = Regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    history = []
    for epoch in range(epochs):
        for start in range(0, len(names), batch):
            rows = slice(start, start + batch)
            loss = F.mse_loss(model(numeric[rows], text[rows]), target[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        history.append(F.mse_loss(model(numeric, text), target).item())
        print(f"epoch {epoch} loss {loss.item():.4f}")
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
