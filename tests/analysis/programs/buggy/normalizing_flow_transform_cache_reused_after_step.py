"""Density estimation with a normalizing flow written with torch.distributions: a
learnable elementwise affine transform (cache_size=1, as flow transforms commonly are)
maps a standard normal onto the data, and the negative log-likelihood of the full data
set is minimised.

Report: https://github.com/pyro-ppl/pyro/pull/2542 -- in the first normalizing-flows
tutorial the transform modules were reused after optimizer.step(), and "their caches are
invalid, and this was causing loud errors 'cannot backward through graph a second
time'". log_prob(X) inverts the transform and caches the pair (X, x); on the next step
the same data tensor X hits the cache, and the cached x still belongs to the previous
step's graph.
"""

import torch
import torch.distributions as D
import torch.nn as nn
from torch.distributions import constraints


class LearnableAffine(D.Transform):
    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(self, log_scale, shift):
        super().__init__(cache_size=1)
        self.log_scale, self.shift = log_scale, shift

    def _call(self, x):
        return x * self.log_scale.exp() + self.shift

    def _inverse(self, y):
        return (y - self.shift) * torch.exp(-self.log_scale)

    def log_abs_det_jacobian(self, x, y):
        return self.log_scale.expand_as(x).sum(-1)


def main(steps=5):
    torch.manual_seed(0)
    X = torch.randn(256, 2) * torch.tensor([2.0, 0.5]) + torch.tensor([1.0, -3.0])
    log_scale, shift = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(2))
    base = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
    flow = LearnableAffine(log_scale, shift)
    dist_x = D.TransformedDistribution(base, [flow])
    optimizer = torch.optim.Adam([log_scale, shift], lr=5e-2)
    for step in range(steps):
        optimizer.zero_grad()
        loss = -dist_x.log_prob(X).mean()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"step {step}: nll {loss.item():.4f}")


if __name__ == "__main__":
    main()
