"""Lipschitz-constrained regression critic: a hand-written spectrally normalised linear
layer estimates the top singular value of its weight by one power-iteration step per
forward, keeping the vector ``u`` between calls.

Report: https://github.com/pytorch/pytorch/issues/10004 -- discussing spectral norm's
power iteration, SsnL: the ``u`` vector is cached and reused across calls, so the
iteration runs under ``no_grad`` (history is not tracked); a ``u`` kept with its
history makes every later forward build on graphs that earlier backwards freed.

Here the power-iteration step runs with autograd on and ``self.u`` keeps its history,
so the second step's backward reaches the first step's freed graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SNLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * 0.5)
        self.bias = nn.Parameter(torch.zeros(d_out))
        self.u = F.normalize(torch.randn(d_out), dim=0)

    def forward(self, x):
        v = F.normalize(self.weight.t() @ self.u, dim=0)
        self.u = F.normalize(self.weight @ v, dim=0)
        sigma = torch.dot(self.u, self.weight @ v)
        return F.linear(x, self.weight / sigma, self.bias)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = SNLinear(4, 32), SNLinear(32, 1)

    def forward(self, x):
        return self.l2(F.leaky_relu(self.l1(x), 0.2)).squeeze(-1)


def main(steps=4):
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = x.norm(dim=1)
    critic = Critic()
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-2)
    for step in range(steps):
        loss = F.mse_loss(critic(x), y)
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
