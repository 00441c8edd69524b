"""Written by hand: the closure re-evaluates the model every time L-BFGS calls it."""

import torch
from torch import nn


def fit(model, inputs, targets, steps=2):
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)

    def closure():
        optimizer.zero_grad()
        loss = (model(inputs) - targets).pow(2).mean()
        loss.backward()
        return loss

    for step in range(steps):
        optimizer.step(closure)


torch.manual_seed(0)
fit(nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)), torch.randn(20, 3), torch.randn(20, 1))
