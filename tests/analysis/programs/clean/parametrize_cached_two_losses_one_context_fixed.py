"""Energy model with a positive semi-definite coupling matrix (``W W^T``) whose two
objectives are computed under one ``parametrize.cached()`` context and backwarded once,
as their sum, so the cached weight's graph is traversed a single time per step (the use
albanD describes in https://github.com/pytorch/pytorch/issues/71062).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrize


class Gram(nn.Module):
    def forward(self, w):
        return w @ w.transpose(-1, -2) / w.size(-1)


class EnergyRegressor(nn.Module):
    def __init__(self, dim=6):
        super().__init__()
        self.coupling = nn.Linear(dim, dim, bias=False)
        parametrize.register_parametrization(self.coupling, "weight", Gram())
        self.out = nn.Linear(dim, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.coupling(x))).squeeze(-1)


def main(steps=3, reg=1e-2):
    torch.manual_seed(0)
    x = torch.randn(32, 6)
    y = (x[:, 0] * x[:, 1]).tanh()
    model = EnergyRegressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        with parametrize.cached():
            fit = F.mse_loss(model(x), y)
            spectral = reg * torch.linalg.matrix_norm(torch.tanh(model.coupling.weight), ord="fro")
            (fit + spectral).backward()
        history.append(fit.item() + spectral.item())
        optimizer.step()
        print(f"step {step} fit {fit.item():.4f} spectral {spectral.item():.4f}")

    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
