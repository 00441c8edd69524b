"""Monte-Carlo expected improvement on a hand-written exact GP, optimised over a batch of
candidates with fixed base samples: in eval mode the model keeps a prediction cache
(K^-1 y, the mean cache) between posterior calls, as GPyTorch's prediction strategy does.

Report: https://github.com/cornellius-gp/gpytorch/issues/554 -- "Repeated posterior
evaluation (and backward) with same base_samples raises second backward issue"; with
detach_test_caches(True) (and fast_pred_var) there was no issue, with
detach_test_caches(False) the second backward raised. The cache is computed from the
kernel hyperparameters, which require grad; kept with its graph, as here, the second
acquisition step backwards into the graph the first one freed.
"""

import torch
import torch.nn as nn


class ExactGP(nn.Module):
    def __init__(self, train_x, train_y, detach_test_caches=False):
        super().__init__()
        self.train_x, self.train_y = train_x, train_y
        self.log_lengthscale = nn.Parameter(torch.tensor(-1.0))
        self.log_noise = nn.Parameter(torch.tensor(-3.0))
        self.detach_test_caches = detach_test_caches
        self.mean_cache = None

    def kernel(self, a, b):
        return torch.exp(-0.5 * torch.cdist(a, b).pow(2) / self.log_lengthscale.exp().pow(2))

    def posterior(self, x):
        if self.mean_cache is None:
            k = self.kernel(self.train_x, self.train_x) + self.log_noise.exp() * torch.eye(len(self.train_x))
            cache = torch.linalg.solve(k, self.train_y)
            self.mean_cache = cache.detach() if self.detach_test_caches else cache
        k_xt = self.kernel(x, self.train_x)
        mean = k_xt @ self.mean_cache
        var = (1.0 - (k_xt**2).sum(-1) * 0.5).clamp(min=1e-4)
        return mean, var.sqrt()


def main(steps=4, q=3, mc=32):
    torch.manual_seed(0)
    train_x = torch.rand(10, 2)
    train_y = -((train_x - 0.6) ** 2).sum(-1)
    model = ExactGP(train_x, train_y)
    model.eval()
    base_samples = torch.randn(mc, q)
    best_f = train_y.max()
    candidates = torch.rand(q, 2, requires_grad=True)
    optimizer = torch.optim.Adam([candidates], lr=0.05)
    for step in range(steps):
        mean, std = model.posterior(candidates)
        samples = mean + std * base_samples
        qei = (samples.max(-1).values - best_f).clamp(min=0).mean()
        optimizer.zero_grad()
        (-qei).backward()  # error: [carried-graph-backward]
        optimizer.step()
        with torch.no_grad():
            candidates.clamp_(0, 1)
        print(f"step {step}: qEI {qei.item():.4f}")


if __name__ == "__main__":
    main()
