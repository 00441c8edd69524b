"""Multi-task learning (segmentation-ish + depth-ish heads) with uncertainty weighting (Kendall et al.)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class MultiTaskNet(nn.Module):
    def __init__(self, d_in=10, hidden=24, n_classes=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.cls_head = nn.Linear(hidden, n_classes)
        self.reg_head = nn.Linear(hidden, 1)
        self.log_vars = nn.Parameter(torch.zeros(2))

    def forward(self, x):
        h = self.encoder(x)
        return self.cls_head(h), self.reg_head(h).squeeze(-1)


def weighted_total(model, losses):
    total = 0.0
    for i, loss in enumerate(losses):
        precision = torch.exp(-model.log_vars[i])
        total = total + precision * loss + model.log_vars[i]
    return total


def train(epochs=2):
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(32, 10), torch.randint(0, 3, (32,)), torch.randn(32))
    loader = DataLoader(ds, batch_size=8, shuffle=True)
    model = MultiTaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        logs = {"cls": 0.0, "reg": 0.0, "total": 0.0}
        for x, y_cls, y_reg in loader:
            logits, reg = model(x)
            cls_loss = F.cross_entropy(logits, y_cls)
            reg_loss = F.mse_loss(reg, y_reg)
            loss = weighted_total(model, [cls_loss, reg_loss])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            logs["cls"] += cls_loss.item()
            logs["reg"] += reg_loss.item()
            logs["total"] += loss.item()
        print(
            epoch, {k: round(v / len(loader), 4) for k, v in logs.items()}, model.log_vars.detach().tolist()
        )


if __name__ == "__main__":
    train()
