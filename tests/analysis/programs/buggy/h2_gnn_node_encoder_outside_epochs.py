"""Two-layer message-passing GNN on a random graph, plain tensors and index_add_.

The node encoder is trainable, but its output is computed once before the epoch
loop "because the features never change".

Real report of this mechanism: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109
A trainable conv1D applied to the data once, outside the training loop, made the second
loss.backward() raise.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def random_graph(n_nodes=30, n_edges=90, d=8, n_classes=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(0, n_nodes, (n_edges,), generator=g)
    dst = torch.randint(0, n_nodes, (n_edges,), generator=g)
    x = torch.randn(n_nodes, d, generator=g)
    y = torch.randint(0, n_classes, (n_nodes,), generator=g)
    train_mask = torch.rand(n_nodes, generator=g) < 0.6
    return x, torch.stack([src, dst]), y, train_mask


def propagate(h, edge_index, weight):
    src, dst = edge_index
    messages = h[src] @ weight
    out = torch.zeros(h.size(0), weight.size(1)).index_add_(0, dst, messages)
    deg = torch.zeros(h.size(0)).index_add_(0, dst, torch.ones(dst.size(0))).clamp(min=1)
    return out / deg.unsqueeze(-1)


class MPNN(nn.Module):
    def __init__(self, d_in, d_hidden, n_classes):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU())
        self.w1 = nn.Parameter(torch.randn(d_hidden, d_hidden) * 0.1)
        self.w2 = nn.Parameter(torch.randn(d_hidden, n_classes) * 0.1)

    def message_passing(self, h, edge_index):
        h = F.relu(propagate(h, edge_index, self.w1) + h)
        return propagate(h, edge_index, self.w2)


def main():
    torch.manual_seed(0)
    x, edge_index, y, train_mask = random_graph()
    model = MPNN(8, 16, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    node_h = model.encoder(x)
    for epoch in range(5):
        model.train()
        logits = model.message_passing(node_h, edge_index)
        loss = F.cross_entropy(logits[train_mask], y[train_mask])
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        with torch.no_grad():
            acc = (logits.argmax(-1)[~train_mask] == y[~train_mask]).float().mean()
        print(f"epoch {epoch} loss {loss.item():.3f} val acc {acc.item():.2f}")


if __name__ == "__main__":
    main()
