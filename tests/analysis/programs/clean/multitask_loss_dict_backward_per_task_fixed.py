"""Multi-task tabular model on a shared trunk whose per-task losses are summed and
backwarded once, the workaround that worked in
https://github.com/pytorch/xla/issues/1961 .
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=12, hidden=32, n_classes=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = nn.ModuleDict(
            {"label": nn.Linear(hidden, n_classes), "price": nn.Linear(hidden, 1), "recon": nn.Linear(hidden, d_in)}
        )

    def forward(self, x):
        shared = self.trunk(x)
        return {name: head(shared) for name, head in self.heads.items()}


def task_losses(outputs, x, label, price):
    return {
        "label": F.cross_entropy(outputs["label"], label),
        "price": F.mse_loss(outputs["price"].squeeze(-1), price),
        "recon": 0.1 * F.mse_loss(outputs["recon"], x),
    }


def main(epochs=3):
    torch.manual_seed(0)
    x = torch.randn(64, 12)
    label = (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()
    price = x[:, :4].sum(1)
    model = MultiTaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    history = []
    for epoch in range(epochs):
        optimizer.zero_grad()
        losses = task_losses(model(x), x, label, price)
        total = sum(losses.values())
        total.backward()
        history.append(total.item())
        optimizer.step()
        print(epoch, {name: round(loss.item(), 4) for name, loss in losses.items()})

    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
