"""Robust training loop: batches with a non-finite loss are skipped with `continue`; a
"hard example" branch does its own backward and then moves on, so each batch is
backpropagated at most once.
"""

import math

import torch
import torch.nn as nn


def make_loader(n_batches=4, bs=6):
    batches = []
    for i in range(n_batches):
        x, y = torch.randn(bs, 4), torch.randn(bs, 1)
        if i == 1:
            y[0] = float("nan")
        batches.append((x, y))
    return batches


def train(model, loader, optimizer, hard_threshold=2.0, epochs=2):
    criterion = nn.MSELoss()
    skipped, hard = 0, 0
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            pred = model(x)
            loss = criterion(pred, y)
            if not math.isfinite(loss.item()):
                skipped += 1
                continue
            if loss.item() > hard_threshold:
                hard += 1
                (2.0 * loss).backward()
                optimizer.step()
                continue
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
        print(f"epoch {epoch}: last loss {loss.item():.4f}")
    return skipped, hard


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    skipped, hard = train(model, make_loader(), optimizer)
    print(f"skipped {skipped} batches, {hard} hard batches")


if __name__ == "__main__":
    main()
