"""MNIST-style MLP with validation under no_grad, ReduceLROnPlateau and early stopping."""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split


class MLP(nn.Module):
    def __init__(self, d_in=64, hidden=32, n_classes=10, p=0.2):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x.flatten(1)))))


def train_one_epoch(model, loader, optimizer):
    model.train()
    running, seen = 0.0, 0
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        running += loss.item() * x.size(0)
        seen += x.size(0)
    return running / seen


@torch.no_grad()
def validate(model, loader):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for x, y in loader:
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        total += y.numel()
    return loss_sum / total, correct / total


def main(max_epochs=3, patience=1):
    torch.manual_seed(0)
    full = TensorDataset(torch.randn(60, 8, 8), torch.randint(0, 10, (60,)))
    train_ds, val_ds = random_split(full, [45, 15], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_ds, batch_size=15, shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=15)
    model = MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)

    best_loss, best_state, bad = float("inf"), None, 0
    for epoch in range(max_epochs):
        train_loss = train_one_epoch(model, train_loader, optimizer)
        val_loss, val_acc = validate(model, val_loader)
        scheduler.step(val_loss)
        print(f"epoch {epoch}: train {train_loss:.4f} val {val_loss:.4f} acc {val_acc:.3f}")
        if val_loss < best_loss:
            best_loss, best_state, bad = val_loss, copy.deepcopy(model.state_dict()), 0
        else:
            bad += 1
            if bad > patience:
                print("early stopping")
                break
    model.load_state_dict(best_state)
    return model


if __name__ == "__main__":
    main()
