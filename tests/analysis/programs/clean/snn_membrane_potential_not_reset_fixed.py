"""Spiking classifier whose network resets every neuron's membrane potential at the
start of each forward (``utils.reset`` in the fix of
https://github.com/jeshraghian/snntorch/issues/250), so no batch starts from the
previous batch's graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpikeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem):
        ctx.save_for_backward(mem)
        return (mem > 0).float()

    @staticmethod
    def backward(ctx, grad_out):
        (mem,) = ctx.saved_tensors
        return grad_out / (1 + 10 * mem.abs()) ** 2


class LIF(nn.Module):
    def __init__(self, beta=0.9):
        super().__init__()
        self.beta = beta
        self.mem = None

    def reset(self):
        self.mem = None

    def forward(self, current):
        if self.mem is None:
            self.mem = torch.zeros_like(current)
        self.mem = self.beta * self.mem + current
        spk = SpikeFn.apply(self.mem - 1.0)
        self.mem = self.mem - spk
        return spk


class SpikingNet(nn.Module):
    def __init__(self, steps=5):
        super().__init__()
        self.steps = steps
        self.fc1, self.lif1 = nn.Linear(8, 24), LIF()
        self.fc2, self.lif2 = nn.Linear(24, 2), LIF()

    def forward(self, x):
        self.lif1.reset()
        self.lif2.reset()
        counts = 0
        for _ in range(self.steps):
            counts = counts + self.lif2(self.fc2(self.lif1(self.fc1(x))))
        return counts


def main(epochs=3):
    torch.manual_seed(0)
    x = torch.rand(32, 8) * 3
    y = (x[:, 0] > x[:, 1]).long()
    net = SpikingNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=5e-3)
    for epoch in range(epochs):
        loss = F.cross_entropy(net(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    assert net.fc1.weight.grad.abs().sum() > 0


if __name__ == "__main__":
    main()
