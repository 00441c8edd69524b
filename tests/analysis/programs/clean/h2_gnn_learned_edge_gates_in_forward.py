"""Message passing with learnable edge gates over plain tensors: the gates
``sigmoid(edge_logits)`` are computed inside ``forward`` on every call, and the degree
normaliser, which depends only on the graph, is computed once before training.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def grid_graph(side=5):
    idx = torch.arange(side * side).view(side, side)
    right = torch.stack([idx[:, :-1].flatten(), idx[:, 1:].flatten()])
    down = torch.stack([idx[:-1].flatten(), idx[1:].flatten()])
    edges = torch.cat([right, down], dim=1)
    return torch.cat([edges, edges.flip(0)], dim=1)


class GatedMP(nn.Module):
    def __init__(self, n_edges, d_in, hidden, n_classes):
        super().__init__()
        self.edge_logits = nn.Parameter(torch.zeros(n_edges))
        self.lin_in = nn.Linear(d_in, hidden)
        self.lin_msg = nn.Linear(hidden, hidden)
        self.lin_out = nn.Linear(hidden, n_classes)

    def forward(self, x, edge_index, inv_deg):
        gates = torch.sigmoid(self.edge_logits).unsqueeze(-1)
        src, dst = edge_index
        h = F.relu(self.lin_in(x))
        for _ in range(2):
            msg = gates * self.lin_msg(h)[src]
            h = F.relu(h + inv_deg * torch.zeros_like(h).index_add(0, dst, msg))
        return self.lin_out(h)


def main(epochs=5):
    torch.manual_seed(0)
    edge_index = grid_graph()
    n = 25
    x = torch.randn(n, 4)
    y = (torch.arange(n) % 5 < 2).long()
    inv_deg = 1.0 / torch.zeros(n).index_add(0, edge_index[1], torch.ones(edge_index.size(1))).unsqueeze(-1)
    model = GatedMP(edge_index.size(1), 4, 16, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(epochs):
        loss = F.cross_entropy(model(x, edge_index, inv_deg), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(epoch, round(loss.item(), 4), round(torch.sigmoid(model.edge_logits).mean().item(), 4))


if __name__ == "__main__":
    main()
