"""Training loop that survives out-of-memory errors: on OOM the batch is split in half and
each half gets its own forward and backward.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimulatedOOM(RuntimeError):
    pass


class FlakyNet(nn.Module):
    """Raises a fake OOM for batches above a size limit (stands in for a real CUDA OOM)."""

    def __init__(self, limit=6):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
        self.limit = limit

    def forward(self, x):
        if x.size(0) > self.limit:
            raise SimulatedOOM("CUDA out of memory. Tried to allocate 2.00 GiB")
        return self.body(x)


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    try:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        total = loss.item()
    except RuntimeError as err:
        if "out of memory" not in str(err):
            raise
        optimizer.zero_grad()
        total = 0.0
        for xs, ys in zip(x.chunk(2), y.chunk(2)):
            part = F.cross_entropy(model(xs), ys) * xs.size(0) / x.size(0)
            part.backward()
            total += part.item()
    optimizer.step()
    return total


def main():
    torch.manual_seed(0)
    model = FlakyNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for batch_size in (4, 8, 6):
            x = torch.randn(batch_size, 5)
            y = torch.randint(0, 3, (batch_size,))
            loss = train_step(model, optimizer, x, y)
            print(f"epoch {epoch} bs {batch_size}: loss {loss:.4f}")


if __name__ == "__main__":
    main()
