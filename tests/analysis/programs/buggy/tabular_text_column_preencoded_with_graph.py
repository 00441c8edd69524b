"""Tabular regression with a text column: each row's category string is pre-encoded
once by a hashing embedder, then a small MLP trains on numeric features plus the text
embedding.

Report: https://github.com/pyg-team/pytorch-frame/pull/229 -- the testing text
embedder returned ``self.embedding(idx)`` with its graph; training on the pre-encoded
column then raised "Trying to backward through the graph a second time" in the second
iteration. The fix adds ``.detach()`` to the embedder's output.

Here the embedder's output keeps the ``nn.Embedding`` graph, and the pre-encoded
matrix is built once, before training.
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
        return self.embedding(idx)


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
    for epoch in range(epochs):
        for start in range(0, len(names), batch):
            rows = slice(start, start + batch)
            loss = F.mse_loss(model(numeric[rows], text[rows]), target[rows])
            optimizer.zero_grad()
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
