"""Siamese network with contrastive loss (Hadsell et al.) trained for a fixed number of optimizer
steps in a `while` loop over an infinite pair generator; both branches share weights.
"""

import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F


class SiameseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(10, 24), nn.ReLU(), nn.Linear(24, 6))

    def forward(self, a, b):
        return self.embed(a), self.embed(b)


def contrastive_loss(e1, e2, same, margin=1.0):
    d = F.pairwise_distance(e1, e2)
    return (same * d.pow(2) + (1 - same) * F.relu(margin - d).pow(2)).mean()


def pair_stream(batch=8):
    for _ in itertools.count():
        a = torch.randn(batch, 10)
        same = (torch.rand(batch) < 0.5).float()
        b = torch.where(same.bool().unsqueeze(1), a + 0.05 * torch.randn_like(a), torch.randn(batch, 10))
        yield a, b, same


def main(max_steps=4, log_every=2):
    torch.manual_seed(0)
    model = SiameseNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    stream = pair_stream()
    step, running = 0, 0.0
    while step < max_steps:
        a, b, same = next(stream)
        e1, e2 = model(a, b)
        loss = contrastive_loss(e1, e2, same)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
        step += 1
        if step % log_every == 0:
            print(f"step {step}: loss {running / log_every:.4f}")
            running = 0.0


if __name__ == "__main__":
    main()
