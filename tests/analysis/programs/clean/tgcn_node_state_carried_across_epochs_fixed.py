"""Traffic-style forecasting with a temporal GCN (TGCN) whose hidden node state starts
from zeros at the beginning of every epoch, so no epoch backwards into the previous
one (the situation of https://github.com/bfGraph/STGraph/issues/4 avoided).
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
    history = []
    for epoch in range(epochs):
        hidden = torch.zeros(n, 8)
        loss = 0
        for step in range(steps):
            hidden = cell(speeds[step], hidden, norm_adj)
            loss = loss + (readout(hidden) - speeds[step + 1]).pow(2).mean()
        optimizer.zero_grad()
        (loss / steps).backward()
        optimizer.step()
        history.append(loss.item())
        print(f"epoch {epoch} loss {loss.item() / steps:.4f}")

    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
