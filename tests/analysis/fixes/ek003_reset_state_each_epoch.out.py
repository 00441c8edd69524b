"""A recurrent state stepped over the same sequence every epoch, carried from one epoch into the next."""

import torch
from torch import nn

torch.manual_seed(0)
cell = nn.GRUCell(3, 6)
head = nn.Linear(6, 1)
optimizer = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-2)
series = torch.randn(8, 4, 3)
targets = series.sum(-1, keepdim=True)

hidden = torch.zeros(4, 6)
for epoch in range(3):
    hidden = torch.zeros(4, 6)
    loss = 0
    for step in range(8):
        hidden = cell(series[step], hidden)
        loss = loss + (head(hidden) - targets[step]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
