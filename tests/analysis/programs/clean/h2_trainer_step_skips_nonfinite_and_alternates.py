"""A trainer whose ``training_step`` returns early for non-finite losses, and whose fit loop
alternates between a main and an auxiliary objective with ``continue``: per step, exactly one
backward runs on a freshly computed loss.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.main_head = nn.Linear(32, 3)
        self.aux_head = nn.Linear(32, 8)

    def forward(self, x):
        h = self.body(x)
        return self.main_head(h), self.aux_head(h)


class Trainer:
    def __init__(self, model, aux_every=3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
        self.aux_every = aux_every
        self.skipped = 0

    def training_step(self, loss):
        if not math.isfinite(loss.item()):
            self.skipped += 1
            return None
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, x, y, epochs=2, bs=12):
        log = []
        step = 0
        for _ in range(epochs):
            for i in range(0, len(x), bs):
                xb, yb = x[i : i + bs], y[i : i + bs]
                logits, recon = self.model(xb)
                step += 1
                if step % self.aux_every == 0:
                    log.append(self.training_step(F.mse_loss(recon, xb)))
                    continue
                if yb.numel() == 0:
                    break
                log.append(self.training_step(F.cross_entropy(logits, yb)))
        return log


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(48, 8)
    x[5] = float("nan")
    y = torch.randint(0, 3, (48,))
    trainer = Trainer(Model())
    log = trainer.fit(x, y)
    print(len(log), "steps,", trainer.skipped, "skipped")
