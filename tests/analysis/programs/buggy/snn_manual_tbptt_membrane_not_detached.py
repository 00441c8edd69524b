"""Spiking recurrent network trained with hand-written truncated BPTT: one leaky
neuron layer simulated one time step per call, a readout on the membrane, and an update
every K steps over a long time-varying signal.

Report: https://github.com/jeshraghian/snntorch/issues/172 -- the backprop module's
TBPTT failed on time-varying data; the maintainer recommended a manual loop that
simulates one time step per forward and calls backward every K steps, adding:
"Following each update, the state variables should be detached from the computational
graph to avoid backpropagating through them again: e.g., mem.detach_()". Without that
detach, as here, the second update's backward runs back into the first chunk's graph.
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
            loss.backward()  # error: [carried-graph-backward]
            optimizer.step()
            print(f"step {step + 1}: loss {loss.item() / k:.4f}")
            loss = 0


if __name__ == "__main__":
    main()
