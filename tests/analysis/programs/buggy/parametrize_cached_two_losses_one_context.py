"""Energy model with a positive semi-definite coupling matrix (``W W^T``) and two
objectives per step (a regression loss and a spectral regulariser), both computed under
one ``parametrize.cached()`` context.

Report: https://github.com/pytorch/pytorch/issues/71062 -- albanD: the cached
parametrized weight is computed in a differentiable way, so several backwards inside one
cached context backward through it more than once, and "Trying to backward through the
graph a second time" is expected.

Here the regression loss and the regulariser both use the cached coupling matrix and
are backwarded one after the other inside the same context.
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
    for step in range(steps):
        optimizer.zero_grad()
        with parametrize.cached():
            fit = F.mse_loss(model(x), y)
            fit.backward()
            spectral = reg * torch.linalg.matrix_norm(torch.tanh(model.coupling.weight), ord="fro")
            spectral.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(f"step {step} fit {fit.item():.4f} spectral {spectral.item():.4f}")


if __name__ == "__main__":
    main()
