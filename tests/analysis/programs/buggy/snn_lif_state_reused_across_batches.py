"""Spiking network: one leaky integrate-and-fire layer (surrogate-gradient spikes) reads
a rate-coded input for a few time steps; a linear readout of the spike counts classifies.

Report: https://github.com/norse/norse/issues/130 -- "Reused state crashes subsequent
backward passes": the state a LIF cell returns was fed back into the cell for the next
input after loss.backward(), and the next backward crashed. The maintainers answered
that it is not a bug of the cell: reusing the state in another backward needs the user
to detach it from the previous computation graph (or to retain that graph). The state
carried from one batch to the next here is never detached.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SuperSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return (v > 0).float()

    @staticmethod
    def backward(ctx, grad):
        (v,) = ctx.saved_tensors
        return grad / (1 + 10 * v.abs()) ** 2


class LIFCell(nn.Module):
    def __init__(self, n_in, n_out, decay_mem=0.9, decay_syn=0.8, v_th=1.0):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.decay_mem, self.decay_syn, self.v_th = decay_mem, decay_syn, v_th

    def forward(self, x, state=None):
        if state is None:
            v = i = torch.zeros(x.shape[0], self.fc.out_features)
        else:
            v, i = state
        i = self.decay_syn * i + self.fc(x)
        v = self.decay_mem * v + i
        z = SuperSpike.apply(v - self.v_th)
        return z, (v - z * self.v_th, i)


def main(batches=5, steps=8, batch_size=16):
    torch.manual_seed(0)
    cell, readout = LIFCell(12, 32), nn.Linear(32, 3)
    optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-2)
    prototypes = torch.rand(3, 12)
    s = None
    for batch in range(batches):
        labels = torch.randint(3, (batch_size,))
        counts = 0
        for _ in range(steps):
            spikes_in = (torch.rand(batch_size, 12) < prototypes[labels]).float()
            z, s = cell(spikes_in, s)
            counts = counts + z
        loss = F.cross_entropy(readout(counts / steps), labels)
        optimizer.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        optimizer.step()
        print(f"batch {batch}: loss {loss.item():.3f}, rate {(counts / steps).mean().item():.3f}")


if __name__ == "__main__":
    main()
