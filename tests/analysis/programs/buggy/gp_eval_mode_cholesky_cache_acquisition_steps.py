"""Bayesian-optimisation style acquisition search on a hand-written GP regressor: in
eval mode the model caches the Cholesky factor of its training kernel matrix, and the
candidate inputs are moved by gradient ascent on the predictive mean, one backward per
step.

Report: https://github.com/cornellius-gp/gpytorch/issues/2689 -- "Variational GPs
cannot compute gradients in eval mode": a second backward through the model in eval()
mode raised "Trying to backward through the graph a second time"; the proposed fix
(https://github.com/cornellius-gp/gpytorch/pull/2737) names the root cause, "reuse of
cached Cholesky factors that still referenced the previous autograd graph", and clears
them after backward. Here the cache is built from the kernel hyperparameters, which
require grad, on the first prediction, and every later step backwards through it again.
"""

import torch
import torch.nn as nn


class ExactGP(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_x, self.train_y = train_x, train_y
        self.log_lengthscale = nn.Parameter(torch.tensor(-0.5))
        self.log_noise = nn.Parameter(torch.tensor(-2.0))
        self.cholesky_cache = None

    def kernel(self, a, b):
        return torch.exp(-0.5 * torch.cdist(a, b).pow(2) / self.log_lengthscale.exp().pow(2))

    def forward(self, x):
        if self.training or self.cholesky_cache is None:
            k = self.kernel(self.train_x, self.train_x) + self.log_noise.exp() * torch.eye(len(self.train_x))
            chol = torch.linalg.cholesky(k)
            if not self.training:
                self.cholesky_cache = chol
        else:
            chol = self.cholesky_cache
        alpha = torch.cholesky_solve(self.train_y.unsqueeze(-1), chol)
        return (self.kernel(x, self.train_x) @ alpha).squeeze(-1)


def main(steps=4):
    torch.manual_seed(0)
    train_x = torch.rand(12, 2)
    train_y = torch.sin(4 * train_x[:, 0]) * torch.cos(3 * train_x[:, 1])
    model = ExactGP(train_x, train_y)
    model.eval()
    candidates = torch.rand(3, 2, requires_grad=True)
    optimizer = torch.optim.Adam([candidates], lr=0.05)
    for step in range(steps):
        optimizer.zero_grad()
        loss = -model(candidates).sum()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        with torch.no_grad():
            candidates.clamp_(0, 1)
        print(f"step {step}: acquisition {-loss.item():.4f}")


if __name__ == "__main__":
    main()
