"""Sparse variational GP regression with learnable inducing points, written the way
GPyTorch's variational strategy works: the Cholesky factor of the inducing-point kernel
matrix is memoised on the strategy and the memo is cleared by train().

Report: https://github.com/cornellius-gp/gpytorch/issues/1754 -- "trivial optimization
issue": optimising a loss on the variational posterior for two iterations raised
"Trying to backward through the graph a second time" unless model.train() was called in
each iteration ("# model.train() # this needs to be called in each iteration, otherwise
the following error occurs"). The memoised factor is computed from the learnable
inducing points with its graph, and without the train() call the second iteration reuses
it.
"""

import torch
import torch.nn as nn


class VariationalStrategy(nn.Module):
    def __init__(self, inducing_points):
        super().__init__()
        self.inducing_points = nn.Parameter(inducing_points)
        self.variational_mean = nn.Parameter(torch.zeros(len(inducing_points)))
        self.log_lengthscale = nn.Parameter(torch.tensor(0.0))
        self._memo = {}

    def train(self, mode=True):
        self._memo.clear()
        return super().train(mode)

    def kernel(self, a, b):
        return torch.exp(-0.5 * (a[:, None] - b[None, :]).pow(2) / self.log_lengthscale.exp().pow(2))

    def cholesky_factor(self):
        if "chol" not in self._memo:
            k_uu = self.kernel(self.inducing_points, self.inducing_points)
            self._memo["chol"] = torch.linalg.cholesky(k_uu + 1e-4 * torch.eye(len(k_uu)))
        return self._memo["chol"]

    def forward(self, x):
        chol = self.cholesky_factor()
        k_xu = self.kernel(x, self.inducing_points)
        interp = torch.cholesky_solve(k_xu.T, chol).T
        return interp @ self.variational_mean


def main(iterations=3):
    torch.manual_seed(0)
    x = torch.linspace(-3, 3, 40)
    y = torch.sin(2 * x) + 0.1 * torch.randn(40)
    model = VariationalStrategy(torch.randn(8))
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for i in range(iterations):
        opt.zero_grad()
        loss = (model(x) - y).pow(2).mean() + 1e-3 * model.variational_mean.pow(2).sum()
        loss.backward()  # error: [carried-graph-backward]
        opt.step()
        print(f"iteration {i}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
