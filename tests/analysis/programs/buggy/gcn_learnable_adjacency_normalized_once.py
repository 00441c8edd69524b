"""Two-layer GCN with a learnable edge-weight adjacency (node classification).

The symmetric normalisation D^-1/2 A D^-1/2 of the learnable adjacency is
computed once, before training.

Real report of this mechanism: https://github.com/sigeisler/robustness_of_gnns_at_scale/issues/4
A GCN with trainable edge weights raises at the second backward; the maintainer's fix is to
switch off the layer's caching of the normalised adjacency.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize_adjacency(adj):
    adj = adj + torch.eye(adj.size(0))
    deg = adj.sum(1)
    d_inv_sqrt = deg.pow(-0.5)
    return d_inv_sqrt.unsqueeze(1) * adj * d_inv_sqrt.unsqueeze(0)


class GCN(nn.Module):
    def __init__(self, in_dim, hid_dim, out_dim, dropout=0.5):
        super().__init__()
        self.lin1 = nn.Linear(in_dim, hid_dim)
        self.lin2 = nn.Linear(hid_dim, out_dim)
        self.dropout = dropout

    def forward(self, x, a_hat):
        x = F.relu(a_hat @ self.lin1(x))
        x = F.dropout(x, self.dropout, self.training)
        return a_hat @ self.lin2(x)


def main():
    torch.manual_seed(0)
    num_nodes, num_feats, num_classes = 10, 5, 3
    features = torch.randn(num_nodes, num_feats)
    labels = torch.randint(0, num_classes, (num_nodes,))
    train_mask = torch.arange(num_nodes) < 6

    edge_logits = nn.Parameter(torch.randn(num_nodes, num_nodes))
    model = GCN(num_feats, 8, num_classes)
    optimizer = torch.optim.Adam([*model.parameters(), edge_logits], lr=0.01, weight_decay=5e-4)

    adjacency = torch.sigmoid(edge_logits)
    adjacency = (adjacency + adjacency.t()) / 2
    a_hat = normalize_adjacency(adjacency)

    for epoch in range(3):
        model.train()
        optimizer.zero_grad()
        out = model(features, a_hat)
        loss = F.cross_entropy(out[train_mask], labels[train_mask])
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()

        model.eval()
        with torch.no_grad():
            pred = model(features, a_hat).argmax(1)
            acc = (pred[~train_mask] == labels[~train_mask]).float().mean()
        print(f"Epoch {epoch:03d} loss {loss.item():.4f} test acc {acc:.3f}")


if __name__ == "__main__":
    main()
