"""GCN on a fixed citation-style graph whose normalised adjacency D^-1/2 (A + I) D^-1/2 is
computed once and cached: the edge weights are data, not parameters, so the cached
matrix carries no graph and every epoch's backward only goes through this epoch's
forward (the cached-and-detached counterpart of a learnable adjacency).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CachedGCNConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)
        self._norm_adj = None

    def forward(self, x, edge_index, edge_weight):
        if self._norm_adj is None:
            n = x.size(0)
            adj = torch.zeros(n, n).index_put((edge_index[0], edge_index[1]), edge_weight, accumulate=True)
            adj = adj + torch.eye(n)
            d = adj.sum(1).pow(-0.5)
            self._norm_adj = (d[:, None] * adj * d[None, :]).detach()
        return self._norm_adj @ self.lin(x)


def random_graph(n=20, p=0.2):
    gen = torch.Generator().manual_seed(0)
    mask = torch.rand(n, n, generator=gen) < p
    mask = mask | mask.t()
    src, dst = mask.nonzero(as_tuple=True)
    return torch.stack([src, dst]), torch.rand(src.numel(), generator=gen) + 0.5


def main(epochs=5):
    torch.manual_seed(0)
    edge_index, edge_weight = random_graph()
    x = torch.randn(20, 5)
    y = (x[:, 0] > 0).long()
    conv1, conv2 = CachedGCNConv(5, 16), CachedGCNConv(16, 2)
    optimizer = torch.optim.Adam([*conv1.parameters(), *conv2.parameters()], lr=1e-2)
    history = []
    for epoch in range(epochs):
        h = F.relu(conv1(x, edge_index, edge_weight))
        loss = F.cross_entropy(conv2(h, edge_index, edge_weight), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"epoch {epoch} loss {loss.item():.4f}")
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
