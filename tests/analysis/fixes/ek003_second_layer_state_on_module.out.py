"""Truncated BPTT over chunks: the loop detaches the first layer's state; the second layer keeps its
state on the module, stepped over each chunk's time steps."""

import torch
import torch.nn.functional as F
from torch import nn


class StackedGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell1, self.cell2 = nn.GRUCell(2, 8), nn.GRUCell(8, 8)
        self.readout = nn.Linear(8, 1)
        self.h2 = torch.zeros(1, 8)

    def forward(self, x, h1):
        h1 = self.cell1(x, h1)
        self.h2 = self.cell2(h1, self.h2)
        return self.readout(self.h2), h1


torch.manual_seed(0)
model = StackedGRU()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
series = torch.randn(13, 1, 2).cumsum(0) * 0.1
h1 = torch.zeros(1, 8)
for chunk in range(3):
    model.h2 = model.h2.detach()
    h1 = h1.detach()
    loss = 0
    for t in range(chunk * 4, chunk * 4 + 4):
        pred, h1 = model(series[t], h1)
        loss = loss + F.mse_loss(pred, series[t + 1, :, :1])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"chunk {chunk}: loss {loss.item():.4f}")
