"""Fine-tuning only the head of a network, with early stopping on the gradient norm.

After each step's ``loss.backward()`` the loop measures the gradient norm of the
trainable parameters from their ``.grad``, which the backward filled (cleared right before).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self, d_in=10, width=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())

    def forward(self, x):
        return self.body(x)


class Finetuned(nn.Module):
    def __init__(self, backbone, n_classes=3):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def data(n=64, d_in=10, n_classes=3, seed=7):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d_in, generator=g)
    y = torch.randint(0, n_classes, (n,), generator=g)
    return x, y


def finetune(model, x, y, max_steps=6, tol=1e-4, lr=0.05):
    for p in model.backbone.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    for step in range(max_steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        trainable = [p for p in model.parameters() if p.requires_grad]
        grad_norm = torch.sqrt(sum(p.grad.pow(2).sum() for p in trainable)).item()
        print(f"step {step}: loss {loss.item():.4f} grad norm {grad_norm:.5f}")
        if grad_norm < tol:
            break
        optimizer.step()
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = data()
    finetune(Finetuned(Backbone()), x, y)
