"""Spiking recurrent network trained with hand-written truncated BPTT: one leaky
neuron layer simulated one time step per call, a readout on the membrane, and an update
every K steps over a long time-varying signal.

Twin of buggy/snn_manual_tbptt_membrane_not_detached.py with the maintainer's advice
applied: after each update the membrane potential is detached in place
(mem.detach_()), so it keeps its value but the next chunk's graph starts from it.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class SpikeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem):
        ctx.save_for_backward(mem)
        return (mem > 1.0).float()

    @staticmethod
    def backward(ctx, grad):
        (mem,) = ctx.saved_tensors
        return grad / (1 + 5 * (mem - 1.0).abs()) ** 2


class LeakyNet(nn.Module):
    def __init__(self, beta=0.9):
        super().__init__()
        self.fc_in, self.fc_out, self.beta = nn.Linear(1, 32), nn.Linear(32, 1), beta

    def forward(self, x, mem):
        mem = self.beta * mem + self.fc_in(x)
        spk = SpikeFn.apply(mem)
        mem = mem - spk
        return self.fc_out(mem), mem


def main(steps=40, k=10):
    torch.manual_seed(0)
    net = LeakyNet()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    t = torch.arange(steps + 1, dtype=torch.float32)
    signal = torch.sin(2 * math.pi * t / 16).view(-1, 1, 1)
    mem = torch.zeros(1, 32)
    loss = 0
    for step in range(steps):
        out, mem = net(signal[step], mem)
        loss = loss + F.mse_loss(out, signal[step + 1])
        if (step + 1) % k == 0:
            optimizer.zero_grad()
            loss.backward()
            assert all(p.grad is not None for p in net.parameters())
            optimizer.step()
            mem.detach_()
            print(f"step {step + 1}: loss {loss.item() / k:.4f}")
            loss = 0


if __name__ == "__main__":
    main()
