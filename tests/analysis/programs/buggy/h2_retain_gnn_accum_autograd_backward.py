"""Graph classification with gradient accumulation over small graphs (plain tensors).

Each graph's loss goes through ``torch.autograd.backward(..., retain_graph=True)``;
every graph gets a fresh forward pass, so nothing needs the retained buffers.

Real report of this mechanism: https://github.com/ChandlerBang/pytorch-gnn-meta-attack/issues/1
Retain_graph=True on the GNN's outer training backward makes no difference; the maintainer
agrees there is no need to keep the graph there.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graphs(n_graphs=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    graphs = []
    for _ in range(n_graphs):
        n = int(torch.randint(4, 9, (1,), generator=g))
        adj = (torch.rand(n, n, generator=g) < 0.4).float()
        adj = ((adj + adj.t()) > 0).float() + torch.eye(n)
        x = torch.randn(n, 5, generator=g)
        label = int(adj.sum() > n * 2.5)
        graphs.append((x, adj, label))
    return graphs


class GCN(nn.Module):
    def __init__(self, d_in=5, hidden=16, n_classes=2):
        super().__init__()
        self.w1 = nn.Linear(d_in, hidden)
        self.w2 = nn.Linear(hidden, hidden)
        self.readout = nn.Linear(hidden, n_classes)

    def forward(self, x, adj):
        deg_inv = adj.sum(-1, keepdim=True).reciprocal()
        h = F.relu(self.w1(deg_inv * (adj @ x)))
        h = F.relu(self.w2(deg_inv * (adj @ h)))
        return self.readout(h.mean(0))


def main(accum_steps=4, epochs=2):
    torch.manual_seed(0)
    graphs = random_graphs()
    model = GCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    for epoch in range(epochs):
        total = 0.0
        for i, (x, adj, label) in enumerate(graphs):
            loss = F.cross_entropy(model(x, adj).unsqueeze(0), torch.tensor([label])) / accum_steps
            torch.autograd.backward(loss, retain_graph=True)  # error: [retain-graph-in-loop]
            total += loss.item()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        print(f"epoch {epoch}: {total:.4f}")


if __name__ == "__main__":
    main()
