"""EvolveGCN-O style temporal GNN: a GCN whose weight matrix evolves from snapshot to
snapshot through a GRU cell, trained on a sequence of graph snapshots.

Report: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/305 --
both EvolveGCN-H and EvolveGCN-O examples raised a RuntimeError at ``loss.backward()``
(the loss averaged over the snapshots, once per epoch). An evolving GCN weight that is
kept on the layer between calls makes the next epoch start from a weight whose history
was freed.

Here ``EvolvingGCN`` stores the evolved weight on ``self.weight_state`` and only
initialises it from the parameter on the very first call.
"""

import torch
import torch.nn as nn


class EvolvingGCN(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.initial_weight = nn.Parameter(torch.eye(dim) + 0.1 * torch.randn(dim, dim))
        self.evolve = nn.GRUCell(dim, dim)
        self.weight_state = None

    def forward(self, x, norm_adj):
        prev = self.initial_weight if self.weight_state is None else self.weight_state
        self.weight_state = self.evolve(prev, prev)
        return torch.relu(norm_adj @ x @ self.weight_state)


def snapshots(n_snap=4, n=8, dim=4):
    gen = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n_snap):
        adj = (torch.rand(n, n, generator=gen) > 0.6).float()
        adj = ((adj + adj.t()) > 0).float() + torch.eye(n)
        d = adj.sum(1).pow(-0.5)
        x = torch.randn(n, dim, generator=gen)
        out.append((x, d[:, None] * adj * d[None, :], x.sum(1, keepdim=True)))
    return out


def main(epochs=3):
    torch.manual_seed(0)
    data = snapshots()
    layer, readout = EvolvingGCN(4), nn.Linear(4, 1)
    optimizer = torch.optim.Adam([*layer.parameters(), *readout.parameters()], lr=1e-2)
    for epoch in range(epochs):
        loss = 0
        for i, (x, norm_adj, y) in enumerate(data):
            y_pred = readout(layer(x, norm_adj))
            loss = loss + torch.mean((y_pred - y) ** 2)
        loss = loss / (i + 1)
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
