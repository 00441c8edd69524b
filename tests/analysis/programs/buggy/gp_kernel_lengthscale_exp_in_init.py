"""Exact Gaussian-process regression whose kernel hyperparameters are exponentiated once.

Report: https://github.com/IceLab-X/MiniGP/issues/13 -- the spatio-temporal GP demo
raised "Trying to backward through the graph a second time": the module stored
``torch.exp`` of an ``nn.Parameter`` in ``__init__``, so the exponentiated value was a
tensor built once (and never updated), not a parameter.

Here the RBF kernel keeps ``exp(log_lengthscale)`` and ``exp(log_noise)`` computed in
``__init__``; every step's marginal likelihood backwards through those two nodes.
"""

import math

import torch
import torch.nn as nn


class RBFKernelGP(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_lengthscale = nn.Parameter(torch.zeros(1))
        self.log_noise = nn.Parameter(torch.tensor([-2.0]))
        self.lengthscale = torch.exp(self.log_lengthscale)
        self.noise = torch.exp(self.log_noise)

    def kernel(self, a, b):
        sq = (a[:, None, :] - b[None, :, :]).pow(2).sum(-1)
        return torch.exp(-0.5 * sq / self.lengthscale.pow(2))

    def negative_log_marginal(self, x, y):
        n = x.size(0)
        k = self.kernel(x, x) + self.noise * torch.eye(n)
        chol = torch.linalg.cholesky(k)
        alpha = torch.cholesky_solve(y[:, None], chol)
        fit = 0.5 * (y[:, None] * alpha).sum()
        complexity = torch.log(torch.diagonal(chol)).sum()
        return (fit + complexity + 0.5 * n * math.log(2 * math.pi)) / n

    @torch.no_grad()
    def predict(self, x_train, y_train, x_test):
        k = self.kernel(x_train, x_train) + self.noise * torch.eye(x_train.size(0))
        return self.kernel(x_test, x_train) @ torch.linalg.solve(k, y_train)


def main(steps=5):
    torch.manual_seed(0)
    x = torch.linspace(0, 6, 25)[:, None]
    y = torch.sin(x).squeeze(-1) + 0.1 * torch.randn(25)
    gp = RBFKernelGP()
    optimizer = torch.optim.Adam(gp.parameters(), lr=0.05)
    for step in range(steps):
        optimizer.zero_grad()
        nll = gp.negative_log_marginal(x, y)
        nll.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        print(f"step {step} nll {nll.item():.4f}")
    x_test = torch.linspace(0, 6, 7)[:, None]
    print(gp.predict(x, y, x_test))


if __name__ == "__main__":
    main()
