"""Classifier with an optional auxiliary reconstruction loss (enabled only in warm-up epochs)
and an optional mixup path; exactly one backward runs per step, whichever branch is taken.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(10, 16), nn.ReLU())
        self.cls = nn.Linear(16, 3)
        self.dec = nn.Linear(16, 10)

    def forward(self, x):
        h = self.enc(x)
        return self.cls(h), self.dec(h)


def mixup(x, y, alpha=0.4):
    lam = torch.distributions.Beta(alpha, alpha).sample().item()
    perm = torch.randperm(x.size(0))
    return lam * x + (1 - lam) * x[perm], y, y[perm], lam


def main(epochs=3, warmup_epochs=1, use_mixup=True):
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for step in range(2):
            x, y = torch.randn(8, 10), torch.randint(0, 3, (8,))
            opt.zero_grad()
            if epoch < warmup_epochs:
                logits, recon = model(x)
                loss = F.cross_entropy(logits, y)
                aux = F.mse_loss(recon, x)
                (loss + 0.5 * aux).backward()
            elif use_mixup and step % 2 == 0:
                xm, ya, yb, lam = mixup(x, y)
                logits, _ = model(xm)
                loss = lam * F.cross_entropy(logits, ya) + (1 - lam) * F.cross_entropy(logits, yb)
                loss.backward()
            else:
                logits, _ = model(x)
                loss = F.cross_entropy(logits, y)
                loss.backward()
            opt.step()
            print(f"epoch {epoch} step {step}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
