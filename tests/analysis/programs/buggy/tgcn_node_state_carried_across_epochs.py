"""Traffic-style forecasting with a temporal GCN (TGCN): a GRU whose gates are graph
convolutions runs over a sequence of feature snapshots on a fixed road graph and
predicts the next snapshot.

Report: https://github.com/bfGraph/STGraph/issues/4 -- training a TGCN model with the
update, reset and candidate gates raised "Trying to backward through the graph a second
time" (the issue gives only the message). A hidden node state that is initialised once
and carried from one epoch into the next makes the next epoch's backward reach the
previous epoch's freed graph.

Here ``hidden`` is created before the epoch loop and the last snapshot's state is
carried into the next epoch.
"""

import torch
import torch.nn as nn


class GraphConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, x, norm_adj):
        return norm_adj @ self.lin(x)


class TGCNCell(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.update = GraphConv(d_in + hidden, hidden)
        self.reset = GraphConv(d_in + hidden, hidden)
        self.candidate = GraphConv(d_in + hidden, hidden)

    def forward(self, x, h, norm_adj):
        xh = torch.cat([x, h], dim=1)
        z = torch.sigmoid(self.update(xh, norm_adj))
        r = torch.sigmoid(self.reset(xh, norm_adj))
        c = torch.tanh(self.candidate(torch.cat([x, r * h], dim=1), norm_adj))
        return z * h + (1 - z) * c


def road_graph(n=10):
    adj = torch.eye(n) + torch.diag(torch.ones(n - 1), 1) + torch.diag(torch.ones(n - 1), -1)
    d = adj.sum(1).pow(-0.5)
    return d[:, None] * adj * d[None, :]


def main(epochs=3, steps=6, n=10):
    torch.manual_seed(0)
    norm_adj = road_graph(n)
    t = torch.arange(steps + 1).float()
    speeds = torch.sin(t[:, None] / 2 + torch.arange(n).float()[None, :] / 3)[:, :, None]
    cell, readout = TGCNCell(1, 8), nn.Linear(8, 1)
    optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-2)
    hidden = torch.zeros(n, 8)
    for epoch in range(epochs):
        loss = 0
        for step in range(steps):
            hidden = cell(speeds[step], hidden, norm_adj)
            loss = loss + (readout(hidden) - speeds[step + 1]).pow(2).mean()
        optimizer.zero_grad()
        (loss / steps).backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"epoch {epoch} loss {loss.item() / steps:.4f}")


if __name__ == "__main__":
    main()
