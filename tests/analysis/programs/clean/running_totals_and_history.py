"""Regression training that keeps rich logs: running totals as floats, per-batch losses stored
detached, predictions collected for an epoch-level R^2 under no_grad.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def r2_score(pred, target):
    ss_res = ((target - pred) ** 2).sum()
    ss_tot = ((target - target.mean()) ** 2).sum()
    return 1 - ss_res / ss_tot


def main():
    torch.manual_seed(0)
    x = torch.randn(40, 3)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1 * torch.randn(40, 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=10, shuffle=True)
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.MSELoss()

    history = {"batch_losses": [], "epoch_loss": [], "r2": []}
    for epoch in range(3):
        model.train()
        running_loss = 0.0
        total_loss = torch.zeros(())
        preds, targets = [], []
        for xb, yb in loader:
            out = model(xb)
            loss = criterion(out, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running_loss += loss.item() * xb.size(0)
            total_loss += loss.detach()
            history["batch_losses"].append(loss.detach())
            preds.append(out.detach())
            targets.append(yb)
        history["epoch_loss"].append(running_loss / len(loader.dataset))
        with torch.no_grad():
            history["r2"].append(r2_score(torch.cat(preds), torch.cat(targets)).item())
        print(
            f"epoch {epoch}: loss {history['epoch_loss'][-1]:.4f} "
            f"(sum {total_loss.item():.3f}) r2 {history['r2'][-1]:.3f}"
        )
    print("mean batch loss", torch.stack(history["batch_losses"]).mean().item())


if __name__ == "__main__":
    main()
