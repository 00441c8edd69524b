"""Quantization-aware training with a custom straight-through Function. The fake-quantised
weights are produced inside ``forward`` on every call, so each step has its own graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return torch.clamp(torch.round(x), lo, hi)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * ((x >= ctx.lo) & (x <= ctx.hi)).float(), None, None


class QLinear(nn.Linear):
    def __init__(self, d_in, d_out, bits=4):
        super().__init__(d_in, d_out)
        self.qmax = 2 ** (bits - 1) - 1

    def forward(self, x):
        scale = self.weight.detach().abs().max().clamp(min=1e-8) / self.qmax
        w_q = RoundSTE.apply(self.weight / scale, -self.qmax - 1, self.qmax) * scale
        return F.linear(x, w_q, self.bias)


def main(epochs=3):
    torch.manual_seed(0)
    model = nn.Sequential(QLinear(8, 16), nn.ReLU(), QLinear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(40, 8)
    y = (x[:, 0] + x[:, 1] > 0).long()
    for epoch in range(epochs):
        for i in range(0, 40, 10):
            loss = F.cross_entropy(model(x[i : i + 10]), y[i : i + 10])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            acc = (model(x).argmax(-1) == y).float().mean().item()
        print(f"epoch {epoch}: loss {loss.item():.4f} acc {acc:.2f}")


if __name__ == "__main__":
    main()
