"""Truncated BPTT by hand: a recurrent state stepped once per time step, a backward every k steps."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
cell = nn.RNNCell(1, 8)
readout = nn.Linear(8, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *readout.parameters()], lr=1e-2)
signal = torch.sin(torch.arange(13, dtype=torch.float32) / 2).view(-1, 1, 1)
state = torch.zeros(1, 8)
loss = 0
for t in range(12):
    state = cell(signal[t], state)
    loss = loss + F.mse_loss(readout(state), signal[t + 1])
    if (t + 1) % 4 == 0:
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state.detach_()
        print(f"step {t + 1}: loss {loss.item():.4f}")
        loss = 0
