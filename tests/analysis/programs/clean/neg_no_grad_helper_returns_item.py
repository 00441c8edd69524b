"""Ranking model with a margin schedule: ``positive_share`` is a ``@torch.no_grad``
helper returning a Python float (``.item()``), so the margin it yields carries no graph
into the next iteration (negative for issue 13, mechanism 2).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.no_grad()
def positive_share(scores):
    """Fraction of pairs the model currently ranks correctly."""
    return (scores > 0).float().mean().item()


class Scorer(nn.Module):
    def __init__(self, d=12):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def main(steps=6):
    torch.manual_seed(0)
    pos = torch.randn(64, 12) + 0.5
    neg = torch.randn(64, 12) - 0.5
    model = Scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    margin = 0.1
    for step in range(steps):
        scores = model(pos) - model(neg)
        loss = F.relu(margin - scores).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        margin = 0.1 + 0.5 * positive_share(scores)
        print(f"step {step} loss {loss.item():.4f} margin {margin:.3f}")


if __name__ == "__main__":
    main()
