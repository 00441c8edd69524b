"""Deep residual MLP trained with activation checkpointing, plus an auxiliary
reconstruction head on the checkpointed trunk's output.

Report: https://github.com/zhanghang1989/PyTorch-Encoding/issues/76 -- with gradient
checkpointing, a training script's ``loss.backward(retain_graph=True)`` raised "Trying to
backward through the graph a second time" from inside ``torch/utils/checkpoint.py``'s
backward: a checkpointed segment was being backwarded through again.

Here the auxiliary loss is backwarded first, then the main loss backwards through the
same ``checkpoint(...)`` output.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class ResBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ff(x)


class Trunk(nn.Module):
    def __init__(self, dim=16, depth=3):
        super().__init__()
        self.blocks = nn.Sequential(*[ResBlock(dim) for _ in range(depth)])

    def forward(self, x):
        return self.blocks(x)


def main(steps=3):
    torch.manual_seed(0)
    x = torch.randn(32, 16)
    y = (x[:, :2].sum(1) > 0).long()
    trunk, head, decoder = Trunk(), nn.Linear(16, 2), nn.Linear(16, 16)
    params = [*trunk.parameters(), *head.parameters(), *decoder.parameters()]
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    for step in range(steps):
        optimizer.zero_grad()
        h = checkpoint(trunk, x, use_reentrant=False)
        aux = 0.1 * F.mse_loss(decoder(h), x)
        aux.backward()
        main_loss = F.cross_entropy(head(h), y)
        main_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step} main {main_loss.item():.4f} aux {aux.item():.4f}")


if __name__ == "__main__":
    main()
