"""Full-batch GCN with plain tensors. The normalised adjacency and the propagated input
features (``A_hat @ X``, SGC-style) are computed once before the loop -- from data only, so
they hold no graph, and every epoch rebuilds the trainable part.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(n=40, p=0.1, d=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    adj = (torch.rand(n, n, generator=g) < p).float()
    adj = ((adj + adj.t()) > 0).float() + torch.eye(n)
    x = torch.randn(n, d, generator=g)
    y = (x[:, 0] + adj @ x[:, 1] > 0).long()
    return adj, x, y


def normalize(adj):
    d_inv_sqrt = adj.sum(1).pow(-0.5)
    return d_inv_sqrt.unsqueeze(1) * adj * d_inv_sqrt.unsqueeze(0)


class GCN(nn.Module):
    def __init__(self, d_in, hidden, n_classes):
        super().__init__()
        self.lin1 = nn.Linear(d_in, hidden)
        self.lin2 = nn.Linear(hidden, n_classes)

    def forward(self, ax, a_hat):
        h = F.relu(self.lin1(ax))
        return self.lin2(a_hat @ h)


def main(epochs=6):
    torch.manual_seed(0)
    adj, x, y = random_graph()
    a_hat = normalize(adj)
    ax = a_hat @ x
    train = torch.arange(40) < 28
    model = GCN(6, 16, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    for epoch in range(epochs):
        model.train()
        logits = model(ax, a_hat)
        loss = F.cross_entropy(logits[train], y[train])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            acc = (model(ax, a_hat).argmax(1)[~train] == y[~train]).float().mean()
        print(epoch, round(loss.item(), 4), round(acc.item(), 3))


if __name__ == "__main__":
    main()
