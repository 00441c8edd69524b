"""Regression model inside a DeepSpeed-like engine that owns the optimizer and the gradient
accumulation: the loop calls only ``engine.backward(loss)`` and ``engine.step()``; the model
is reached as ``engine.module`` for evaluation and saving.
"""

import io

import torch
import torch.nn as nn


class Engine(nn.Module):
    def __init__(self, module, lr=1e-2, grad_accum=2):
        super().__init__()
        self.module = module
        self.optimizer = torch.optim.SGD(module.parameters(), lr=lr, momentum=0.9)
        self.grad_accum = grad_accum
        self.micro_steps = 0

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def backward(self, loss):
        (loss / self.grad_accum).backward()
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
    for epoch in range(3):
        perm = torch.randperm(48)
        for i in range(0, 48, 12):
            idx = perm[i : i + 12]
            loss = nn.functional.smooth_l1_loss(engine(x[idx]), y[idx])
            engine.backward(loss)
            engine.step()
        engine.module.eval()
        with torch.no_grad():
            full = nn.functional.smooth_l1_loss(engine.module(x), y).item()
        engine.module.train()
        print(epoch, round(loss.item(), 4), round(full, 4))
    torch.save(engine.module.state_dict(), io.BytesIO())


if __name__ == "__main__":
    main()
