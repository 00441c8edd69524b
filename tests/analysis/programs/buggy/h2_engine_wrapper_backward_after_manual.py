"""Regression model wrapped in a DeepSpeed-like engine (``engine.module`` is the model).

The loop was half-migrated: it still calls ``loss.backward()`` and then also
``engine.backward(loss)``, which backwards the same loss again.

Real report of this mechanism: https://github.com/dropreg/R-Drop/issues/8
The same loss is backwarded twice, by `optimizer.backward(loss)` in the task and again in
the loss code; removing the duplicate call fixed it.
"""

import torch
import torch.nn as nn


class Engine(nn.Module):
    """A tiny stand-in for a DataParallel/DeepSpeed wrapper."""

    def __init__(self, module, lr=1e-2, grad_accum=1):
        super().__init__()
        self.module = module
        self.optimizer = torch.optim.SGD(module.parameters(), lr=lr)
        self.grad_accum = grad_accum
        self.micro_steps = 0

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def backward(self, loss):
        (loss / self.grad_accum).backward()  # error: [double-backward]
        self.micro_steps += 1

    def step(self):
        if self.micro_steps % self.grad_accum == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()


class Regressor(nn.Module):
    def __init__(self, d_in=6, hidden=16):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(d_in, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 1)])

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return self.layers[-1](x).squeeze(-1)


def main():
    torch.manual_seed(0)
    x = torch.randn(48, 6)
    y = x @ torch.randn(6) + 0.1 * torch.randn(48)
    engine = Engine(Regressor())
    for epoch in range(2):
        perm = torch.randperm(48)
        for i in range(0, 48, 12):
            idx = perm[i : i + 12]
            pred = engine(x[idx])
            loss = nn.functional.smooth_l1_loss(pred, y[idx])
            loss.backward()
            engine.backward(loss)
            engine.step()
        print(epoch, loss.item())
    torch.save(engine.module.state_dict(), "/dev/null")


if __name__ == "__main__":
    main()
