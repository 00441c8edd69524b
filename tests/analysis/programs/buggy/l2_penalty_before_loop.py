"""Explicit L2 regularisation added to the loss (instead of optimizer weight_decay).

The penalty is computed once, before the training loop.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args(argv=None):
    p = argparse.ArgumentParser(description="MLP with explicit L2")
    p.add_argument("--l2", type=float, default=1e-3)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--epochs", type=int, default=2)
    return p.parse_args(argv)


def build(d_in=8, n_classes=4):
    return nn.Sequential(
        nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, n_classes)
    )


def main(argv=None):
    args = get_args(argv)
    torch.manual_seed(1)
    dataset = TensorDataset(torch.randn(48, 8), torch.randint(0, 4, (48,)))
    loader = DataLoader(dataset, batch_size=16, shuffle=True, drop_last=True)
    model = build()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)

    l2_penalty = sum(p.pow(2).sum() for name, p in model.named_parameters() if "weight" in name)

    for epoch in range(args.epochs):
        model.train()
        epoch_loss = 0.0
        for inputs, targets in loader:
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, targets) + args.l2 * l2_penalty
            loss.backward()  # error: [pre-loop-graph-backward]
            optimizer.step()
            epoch_loss += loss.item()
        print(f"[{epoch + 1}/{args.epochs}] loss: {epoch_loss / len(loader):.4f}")


if __name__ == "__main__":
    main([])
