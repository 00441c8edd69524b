"""Deep residual MLP trained with activation checkpointing and an auxiliary
reconstruction head: both losses on the checkpointed output are summed and backwarded
once, so the checkpointed segment is recomputed and backwarded a single time per step
(what https://github.com/zhanghang1989/PyTorch-Encoding/issues/76 needed).
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
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        h = checkpoint(trunk, x, use_reentrant=False)
        aux = 0.1 * F.mse_loss(decoder(h), x)
        main_loss = F.cross_entropy(head(h), y)
        (main_loss + aux).backward()
        history.append(main_loss.item() + aux.item())
        optimizer.step()
        print(f"step {step} main {main_loss.item():.4f} aux {aux.item():.4f}")

    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
