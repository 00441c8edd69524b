"""Density estimation with a normalizing flow written with torch.distributions: a learnable
elementwise affine transform, which keeps its last inversion (cache_size=1), maps a standard
normal onto the data, and the negative log-likelihood of the whole data set is minimised. Each
step inverts the very same data tensor, so the transform gives back the inversion the previous
step kept, whose graph that step's backward freed (pyro-ppl/pyro#2542)."""

import torch
import torch.distributions as D
from torch import nn
from torch.distributions import constraints


class Affine(D.Transform):
    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(self, log_scale, shift):
        super().__init__(cache_size=0)
        self.log_scale, self.shift = log_scale, shift

    def _call(self, x):
        return x * self.log_scale.exp() + self.shift

    def _inverse(self, y):
        return (y - self.shift) * torch.exp(-self.log_scale)

    def log_abs_det_jacobian(self, x, y):
        return self.log_scale.expand_as(x).sum(-1)


torch.manual_seed(0)
data = torch.randn(128, 2) * torch.tensor([1.5, 0.5]) + torch.tensor([2.0, -1.0])
log_scale, shift = nn.Parameter(torch.zeros(2)), nn.Parameter(torch.zeros(2))
base = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
flow = D.TransformedDistribution(base, [Affine(log_scale, shift)])
optimizer = torch.optim.Adam([log_scale, shift], lr=0.05)
for step in range(5):
    loss = -flow.log_prob(data).mean()
    optimizer.zero_grad()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()
    print(f"step {step}: nll {loss.item():.4f}")
