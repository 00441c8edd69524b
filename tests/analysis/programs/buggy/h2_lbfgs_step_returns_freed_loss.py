"""Fit a damped oscillator's parameters with L-BFGS.

``optimizer.step(closure)`` returns the loss of the closure's first evaluation; the
script then calls backward on it again to "refresh" the gradients for a final report.

Real report of this mechanism: https://github.com/TingsongYu/PyTorch-Tutorial-2nd/issues/33
Calling backward() a second time on the same loss raises this error; the maintainer answers
that a second backward through one graph needs retain_graph=True on the first.
"""

import math

import torch
import torch.nn as nn


class Oscillator(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_decay = nn.Parameter(torch.tensor(-1.0))
        self.freq = nn.Parameter(torch.tensor(2.5))
        self.phase = nn.Parameter(torch.tensor(0.1))

    def forward(self, t):
        return torch.exp(-torch.exp(self.log_decay) * t) * torch.cos(self.freq * t + self.phase)


def make_observations(n=40, noise=0.02):
    g = torch.Generator().manual_seed(0)
    t = torch.linspace(0, 4, n)
    y = math.e ** (-0.5 * t) * torch.cos(3.0 * t + 0.3)
    return t, y + noise * torch.randn(n, generator=g)


def fit(model, t, y, steps=5):
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10, history_size=5)

    def closure():
        optimizer.zero_grad()
        loss = torch.mean((model(t) - y) ** 2)
        loss.backward()
        return loss

    history = []
    for step in range(steps):
        loss = optimizer.step(closure)
        history.append(loss.item())
    return loss, history


def report(model):
    for name, p in model.named_parameters():
        grad = None if p.grad is None else round(p.grad.item(), 5)
        print(f"{name:>10s} value={p.item():+.4f} grad={grad}")


def main():
    torch.manual_seed(0)
    t, y = make_observations()
    model = Oscillator()
    loss, history = fit(model, t, y)
    print("losses:", [round(h, 5) for h in history])
    model.zero_grad()
    loss.backward()  # error: [double-backward]
    report(model)


if __name__ == "__main__":
    main()
