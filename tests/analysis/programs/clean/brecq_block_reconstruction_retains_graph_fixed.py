"""BRECQ-style post-training quantisation: a block's weights get learnable (AdaRound)
rounding, fitted so that the quantised block reproduces the full-precision block's
outputs on cached calibration inputs.

Twin of buggy/brecq_block_reconstruction_retains_graph.py without the
retain_graph=True: the cached tensors hold no graph and each iteration builds its own.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AdaRoundLinear(nn.Module):
    def __init__(self, linear, bits=4, zeta=1.1, gamma=-0.1):
        super().__init__()
        self.weight, self.bias = linear.weight.detach(), linear.bias.detach()
        self.scale = self.weight.abs().max() / (2 ** (bits - 1) - 1)
        rest = self.weight / self.scale - torch.floor(self.weight / self.scale)
        self.alpha = nn.Parameter(-torch.log((zeta - gamma) / (rest - gamma) - 1))
        self.zeta, self.gamma, self.levels = zeta, gamma, 2 ** (bits - 1)

    def soft_rounding(self):
        return torch.clamp(torch.sigmoid(self.alpha) * (self.zeta - self.gamma) + self.gamma, 0, 1)

    def forward(self, x):
        w = torch.floor(self.weight / self.scale) + self.soft_rounding()
        w = torch.clamp(w, -self.levels, self.levels - 1) * self.scale
        return F.linear(x, w, self.bias)


def reconstruct(fp_block, q_block, cached_inp, cached_out, iters=12, weight=0.01):
    params = [m.alpha for m in q_block if isinstance(m, AdaRoundLinear)]
    optimizer = torch.optim.Adam(params, lr=1e-2)
    for i in range(iters):
        out_quant = q_block(cached_inp)
        rec = F.mse_loss(out_quant, cached_out)
        reg = sum((1 - (2 * m.soft_rounding() - 1).abs().pow(2)).sum() for m in q_block if isinstance(m, AdaRoundLinear))
        err = rec + weight * reg
        optimizer.zero_grad()
        err.backward()
        assert all(p.grad is not None for p in params)
        optimizer.step()
        if i % 6 == 0:
            print(f"iter {i}: rec {rec.item():.5f}")


def main():
    torch.manual_seed(0)
    fp_block = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
    q_block = nn.Sequential(AdaRoundLinear(fp_block[0]), nn.ReLU(), AdaRoundLinear(fp_block[2]))
    cached_inp = torch.randn(32, 16)
    with torch.no_grad():
        cached_out = fp_block(cached_inp)
    reconstruct(fp_block, q_block, cached_inp, cached_out)


if __name__ == "__main__":
    main()
