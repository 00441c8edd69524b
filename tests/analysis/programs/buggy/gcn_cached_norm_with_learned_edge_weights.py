"""GCN with learnable edge weights whose layer caches its normalised adjacency.

Report: https://github.com/sigeisler/robustness_of_gnns_at_scale/issues/4 -- a GCN
with trainable (perturbed) edge weights raised "Trying to backward through the graph a
second time" from the second backward; the maintainer's answer was to switch off the
layer's caching of the normalised adjacency.

Here ``GCNLayer(cached=True)`` stores D^-1/2 (A + I) D^-1/2, built from
``softplus(edge_logits)``, on its first forward and reuses it on every later epoch.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class GCNLayer(nn.Module):
    def __init__(self, d_in, d_out, cached=False):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)
        self.cached = cached
        self._norm_adj = None

    def normalise(self, edge_index, weight, n):
        adj = torch.zeros(n, n).index_put((edge_index[0], edge_index[1]), weight, accumulate=True)
        adj = adj + torch.eye(n)
        d_inv_sqrt = adj.sum(1).pow(-0.5)
        return d_inv_sqrt[:, None] * adj * d_inv_sqrt[None, :]

    def forward(self, x, edge_index, weight):
        if self._norm_adj is None or not self.cached:
            self._norm_adj = self.normalise(edge_index, weight, x.size(0))
        return self._norm_adj @ self.lin(x)


class EdgeWeightedGCN(nn.Module):
    def __init__(self, n_edges, d_in, hidden, n_classes):
        super().__init__()
        self.edge_logits = nn.Parameter(torch.zeros(n_edges))
        self.conv1 = GCNLayer(d_in, hidden, cached=True)
        self.conv2 = GCNLayer(hidden, n_classes, cached=True)

    def forward(self, x, edge_index):
        weight = F.softplus(self.edge_logits)
        h = F.relu(self.conv1(x, edge_index, weight))
        return self.conv2(h, edge_index, weight)


def ring_graph(n):
    src = torch.arange(n)
    dst = (src + 1) % n
    return torch.cat([torch.stack([src, dst]), torch.stack([dst, src])], dim=1)


def main(epochs=4):
    torch.manual_seed(0)
    n = 12
    edge_index = ring_graph(n)
    x = torch.randn(n, 6)
    y = (torch.arange(n) % 3 == 0).long()
    model = EdgeWeightedGCN(edge_index.size(1), 6, 16, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x, edge_index), y)
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
