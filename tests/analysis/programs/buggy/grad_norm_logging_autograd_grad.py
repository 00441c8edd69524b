"""Regression MLP; logs the gradient norm every few steps.

The logging code asks autograd for the gradients of the loss after the
training backward already ran.
"""

import math

import torch
from torch import nn

LOG_EVERY = 1


def build_model(d_in=6, d_hidden=32):
    return nn.Sequential(
        nn.Linear(d_in, d_hidden), nn.SiLU(), nn.Linear(d_hidden, d_hidden), nn.SiLU(), nn.Linear(d_hidden, 1)
    )


def synthetic_regression(n=128, d=6):
    x = torch.randn(n, d)
    w = torch.linspace(-1, 1, d)
    y = (x @ w).unsqueeze(1) + 0.1 * torch.randn(n, 1)
    return x, y


def main():
    torch.manual_seed(0)
    x, y = synthetic_regression()
    model = build_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    loss_fn = nn.SmoothL1Loss()
    params = [p for p in model.parameters() if p.requires_grad]

    step = 0
    for epoch in range(2):
        perm = torch.randperm(x.shape[0])
        for i in range(0, 64, 32):
            idx = perm[i : i + 32]
            optimizer.zero_grad(set_to_none=True)
            pred = model(x[idx])
            loss = loss_fn(pred, y[idx])
            loss.backward()
            if step % LOG_EVERY == 0:
                grads = torch.autograd.grad(loss, params)  # error: [double-backward]
                norm = math.sqrt(sum(float(g.pow(2).sum()) for g in grads))
                print(f"step {step} loss {loss.item():.4f} grad_norm {norm:.3f}")
            optimizer.step()
            step += 1
        scheduler.step()


if __name__ == "__main__":
    main()
