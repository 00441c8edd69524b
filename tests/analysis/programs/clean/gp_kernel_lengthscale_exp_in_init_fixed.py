"""Exact Gaussian-process regression; the kernel keeps the log-hyperparameters as
parameters and exponentiates them on every use (the fix the reporter of
https://github.com/IceLab-X/MiniGP/issues/13 applied: keep the parameter itself as
the module's state, not a value computed from it once).
"""

import math

import torch
import torch.nn as nn


class RBFKernelGP(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_lengthscale = nn.Parameter(torch.zeros(1))
        self.log_noise = nn.Parameter(torch.tensor([-2.0]))

    @property
    def lengthscale(self):
        return torch.exp(self.log_lengthscale)

    @property
    def noise(self):
        return torch.exp(self.log_noise)

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
    first = None
    for step in range(steps):
        optimizer.zero_grad()
        nll = gp.negative_log_marginal(x, y)
        nll.backward()
        optimizer.step()
        first = nll.item() if first is None else first
        print(f"step {step} nll {nll.item():.4f}")
    assert nll.item() < first and gp.log_lengthscale.grad.abs().item() > 0
    x_test = torch.linspace(0, 6, 7)[:, None]
    print(gp.predict(x, y, x_test))


if __name__ == "__main__":
    main()
