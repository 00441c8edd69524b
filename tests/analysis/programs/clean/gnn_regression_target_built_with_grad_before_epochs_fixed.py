"""Node regression with a two-layer GCN on a random geometric graph (DGL-style full-graph
training: one forward over the whole graph per epoch).

Twin of buggy/gnn_regression_target_built_with_grad_before_epochs.py, fixed as the
reporter of https://github.com/dmlc/dgl/issues/1046 did: the regression target is
constructed without requiring gradients, so it is plain data and every epoch's backward
stays inside that epoch's forward.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def random_geometric_graph(n=40, radius=0.3, seed=0):
    gen = torch.Generator().manual_seed(seed)
    pos = torch.rand(n, 2, generator=gen)
    adj = (torch.cdist(pos, pos) < radius).float()
    adj.fill_diagonal_(1.0)
    deg_inv_sqrt = adj.sum(1).pow(-0.5)
    return pos, deg_inv_sqrt[:, None] * adj * deg_inv_sqrt[None, :]


class GraphConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, norm_adj, h):
        return norm_adj @ self.lin(h)


class GCN(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.conv1 = GraphConv(d_in, hidden)
        self.conv2 = GraphConv(hidden, 1)

    def forward(self, norm_adj, features):
        h = F.relu(self.conv1(norm_adj, features))
        return self.conv2(norm_adj, h).squeeze(-1)


def node_signal(pos):
    return [math.sin(3 * x) + math.cos(2 * y) for x, y in pos.tolist()]


def main():
    torch.manual_seed(0)
    pos, norm_adj = random_geometric_graph()
    features = torch.cat([pos, torch.randn(pos.shape[0], 6)], dim=1)
    raw = torch.tensor(node_signal(pos))
    target = (raw - raw.mean()) / raw.std()
    train_mask = torch.rand(pos.shape[0]) < 0.7

    model = GCN(features.shape[1], 16)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    assert not target.requires_grad
    for epoch in range(5):
        model.train()
        pred = model(norm_adj, features)
        loss = F.mse_loss(pred[train_mask], target[train_mask])
        optimizer.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in model.parameters())
        optimizer.step()
        model.eval()
        with torch.no_grad():
            val = F.mse_loss(model(norm_adj, features)[~train_mask], target[~train_mask])
        print(f"epoch {epoch}: train {loss.item():.4f} val {val.item():.4f}")


if __name__ == "__main__":
    main()
