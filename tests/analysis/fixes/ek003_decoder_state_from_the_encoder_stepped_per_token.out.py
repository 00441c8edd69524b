"""A decoder stepped one token at a time from the encoder's final state, with a backward and an
optimizer step after every token (as a seq2seq tutorial's per-token update does)."""

import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.GRU(3, 8, batch_first=True)
cell = nn.GRUCell(3, 8)
head = nn.Linear(8, 3)
optimizer = torch.optim.SGD([*encoder.parameters(), *cell.parameters(), *head.parameters()], lr=0.1)
source = torch.randn(4, 5, 3)
target = torch.randn(4, 6, 3)

_, final = encoder(source)
hidden = final[0]
for t in range(target.size(1)):
    hidden = cell(target[:, t], hidden)
    loss = (head(hidden) - target[:, t]).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    hidden = hidden.detach()
    optimizer.step()
