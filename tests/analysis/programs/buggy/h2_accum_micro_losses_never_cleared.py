"""Gradient accumulation with ``accum_steps`` by stacking the micro-batch losses.

The micro-batch losses are collected in a list and backwarded together every
``accum_steps`` batches -- but the list is only cleared when logging, so the second
cycle backwards the first cycle's losses again.

Real report of this mechanism: https://github.com/davda54/sam/issues/10
A commenter's loop sums per-task losses into `loss`, backwards it, then adds the next pass's
task losses to the same `loss`, so the second backward runs through the first pass's freed
graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def loader(x, y, bs):
    for i in range(0, len(x), bs):
        yield x[i : i + bs], y[i : i + bs]


class MLP(nn.Module):
    def __init__(self, d_in=20, n_classes=5):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, n_classes))

    def forward(self, x):
        return self.net(x)


def train(model, x, y, accum_steps=2, bs=8, log_every=4):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    micro_losses = []
    optimizer.zero_grad()
    for i, (xb, yb) in enumerate(loader(x, y, bs)):
        loss = F.cross_entropy(model(xb), yb)
        micro_losses.append(loss)
        if (i + 1) % accum_steps == 0:
            torch.stack(micro_losses).mean().backward()  # error: [carried-graph-backward]
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            if (i + 1) % log_every == 0:
                print(f"step {i + 1}: {sum(l.item() for l in micro_losses) / len(micro_losses):.4f}")
                micro_losses = []
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(64, 20)
    y = torch.randint(0, 5, (64,))
    train(MLP(), x, y)
