"""Training steps as a generator that yields ``(step, loss.item())``; the consumer implements
hard-example upweighting correctly, by running a new forward pass on the hard batch and
backwarding that loss with a larger weight.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def batch_stream(x, y, bs, epochs, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), bs):
            idx = perm[i : i + bs]
            yield x[idx], y[idx]


def train_steps(model, optimizer, stream):
    for step, (xb, yb) in enumerate(stream):
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(xb).squeeze(-1), yb)
        loss.backward()
        optimizer.step()
        yield step, loss.item(), (xb, yb)


def upweight(model, optimizer, batch, weight):
    xb, yb = batch
    optimizer.zero_grad()
    loss = weight * F.binary_cross_entropy_with_logits(model(xb).squeeze(-1), yb)
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, 5, generator=g)
    y = ((x @ torch.randn(5, generator=g)) > 0).float()
    model = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Linear(8, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    hard_steps, losses = [], []
    for step, loss, batch in train_steps(model, optimizer, batch_stream(x, y, bs=16, epochs=2)):
        losses.append(loss)
        if loss > 0.6:
            upweight(model, optimizer, batch, weight=0.5)
            hard_steps.append(step)
    print("mean loss", sum(losses) / len(losses), "hard steps", hard_steps)
