"""Gradient accumulation over micro-batches: scale each loss, backward every micro-batch,
step every `accum` micro-batches; running loss logged as a float.
"""

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--accum", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--micro-batch", type=int, default=4)
    return parser.parse_known_args(argv)[0]


def main():
    args = parse_args()
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(32, 6), torch.randn(32, 2))
    loader = DataLoader(ds, batch_size=args.micro_batch, shuffle=True)
    model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Linear(16, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 3))
    criterion = nn.MSELoss()

    global_step = 0
    for epoch in range(args.epochs):
        model.train()
        running_loss = 0.0
        optimizer.zero_grad()
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y) / args.accum
            loss.backward()
            running_loss += loss.item()
            if (i + 1) % args.accum == 0 or i + 1 == len(loader):
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                global_step += 1
                if global_step % 2 == 0:
                    print(f"epoch {epoch} step {global_step}: loss {running_loss:.4f}")
                running_loss = 0.0


if __name__ == "__main__":
    main()
