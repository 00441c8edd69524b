"""Tabular classifier with a small hand-rolled Trainer.

The model's ``training_step`` was written Lightning-style and already calls
``loss.backward()``; the Trainer's fit loop then calls backward again on the
returned loss.

Real report of this mechanism: https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
The user added loss.backward() to a PyTorch Lightning training step; the maintainer explains
that Lightning already backwards the returned loss, so the extra call raises this error.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class TabularNet(nn.Module):
    def __init__(self, n_features, n_classes, hidden=16, dropout=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_features, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        return loss


class Trainer:
    def __init__(self, model, lr=1e-2, epochs=2, clip=1.0):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
        self.epochs = epochs
        self.clip = clip
        self.history = []

    def fit(self, loader):
        for epoch in range(self.epochs):
            self.model.train()
            epoch_loss = 0.0
            for batch in loader:
                self.optimizer.zero_grad()
                loss = self.model.training_step(batch)
                loss.backward()  # error: [double-backward]
                nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
                self.optimizer.step()
                epoch_loss += loss.item()
            self.history.append(epoch_loss / len(loader))
            print(f"epoch {epoch}: loss {self.history[-1]:.4f}")
        return self.history


def make_data(n=64, d=10, k=3):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, d, generator=g)
    y = torch.randint(0, k, (n,), generator=g)
    return TensorDataset(x, y)


def main():
    torch.manual_seed(0)
    loader = DataLoader(make_data(), batch_size=16, shuffle=True)
    model = TabularNet(10, 3)
    Trainer(model).fit(loader)


if __name__ == "__main__":
    main()
