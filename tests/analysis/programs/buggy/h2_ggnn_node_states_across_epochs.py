"""Gated graph network over a fixed graph with node states that persist across epochs.

The node states ``h`` are refined every epoch from the previous epoch's states, and
the refinement keeps the autograd history of all earlier epochs.

Real report of this mechanism: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
The tutorial's RNN raises this error once `h_state = h_state.data` is removed, i.e. when the
hidden state returned for one batch is fed into the next batch with its graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def ring_graph(n):
    src = torch.arange(n)
    dst = (src + 1) % n
    return torch.cat([src, dst]), torch.cat([dst, src])


def aggregate(h, src, dst):
    out = torch.zeros_like(h)
    return out.index_add(0, dst, h[src])


class GatedGraphLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.msg = nn.Linear(dim, dim)
        self.gru = nn.GRUCell(dim, dim)

    def forward(self, h, src, dst):
        return self.gru(aggregate(self.msg(h), src, dst), h)


def main():
    torch.manual_seed(0)
    n, dim = 12, 8
    src, dst = ring_graph(n)
    layer = GatedGraphLayer(dim)
    readout = nn.Linear(dim, 2)
    optimizer = torch.optim.Adam([*layer.parameters(), *readout.parameters()], lr=1e-2)
    targets = (torch.arange(n) % 2).long()

    h = torch.randn(n, dim)
    for epoch in range(4):
        for _ in range(2):
            h = layer(h, src, dst)
        loss = F.cross_entropy(readout(h), targets)
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        acc = (readout(h).argmax(-1) == targets).float().mean()
        print(f"epoch {epoch}: loss {loss.item():.3f} acc {acc.item():.2f}")


if __name__ == "__main__":
    main()
