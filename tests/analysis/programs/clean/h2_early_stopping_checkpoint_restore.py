"""Early stopping with patience: the best validation loss is a float from a no-grad
evaluation, the best weights are a deep copy of the state dict, and the model is restored
from it at the end and fine-tuned for one more epoch.
"""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def split(n=120, d=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y = x @ torch.randn(d, 1, generator=g) + 0.3 * torch.randn(n, 1, generator=g)
    return (x[:80], y[:80]), (x[80:], y[80:])


def train_epoch(model, optimizer, data, bs=16):
    x, y = data
    model.train()
    for i in range(0, len(x), bs):
        loss = F.mse_loss(model(x[i : i + bs]), y[i : i + bs])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.no_grad()
def validate(model, data):
    model.eval()
    x, y = data
    return F.mse_loss(model(x), y).item()


def main(max_epochs=12, patience=3):
    torch.manual_seed(0)
    train_data, val_data = split()
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    best_loss, best_state, bad_epochs = float("inf"), None, 0
    for epoch in range(max_epochs):
        train_loss = train_epoch(model, optimizer, train_data)
        val_loss = validate(model, val_data)
        if val_loss < best_loss:
            best_loss, best_state, bad_epochs = val_loss, copy.deepcopy(model.state_dict()), 0
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                print("early stop at", epoch)
                break
        print(epoch, round(train_loss, 4), round(val_loss, 4))
    model.load_state_dict(best_state)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    print("fine-tune", train_epoch(model, optimizer, train_data), "val", validate(model, val_data))


if __name__ == "__main__":
    main()
