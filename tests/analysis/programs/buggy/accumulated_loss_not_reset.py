"""Gradient accumulation done by summing losses into a tensor, backward every N micro-batches.

The accumulator is never reset after the optimizer step.

Real report of this mechanism: https://github.com/davda54/sam/issues/10
A commenter's loop sums per-task losses into `loss`, backwards it, then adds the next pass's
task losses to the same `loss`, so the second backward runs through the first pass's freed
graph.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ACCUM_STEPS = 2


def main():
    torch.manual_seed(0)
    dataset = TensorDataset(torch.randn(40, 7), torch.randn(40, 1))
    loader = DataLoader(dataset, batch_size=5, shuffle=False)
    model = nn.Sequential(nn.Linear(7, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.HuberLoss(delta=1.0)

    model.train()
    accumulated = 0.0
    for step, (x, y) in enumerate(loader):
        pred = model(x)
        loss = criterion(pred, y) / ACCUM_STEPS
        accumulated = accumulated + loss
        if (step + 1) % ACCUM_STEPS == 0:
            accumulated.backward()  # error: [carried-graph-backward]
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            optimizer.zero_grad()
            print(f"update {(step + 1) // ACCUM_STEPS}: loss {accumulated.item():.4f}")
        if step >= 5:
            break

    model.eval()
    with torch.no_grad():
        val_x, val_y = dataset.tensors
        val_loss = criterion(model(val_x), val_y).item()
    print(f"validation loss {val_loss:.4f}")
    return val_loss


if __name__ == "__main__":
    main()
