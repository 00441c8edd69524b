"""Keep every step's loss in a list, and backward their mean each step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
losses = []
for step in range(4):
    optimizer.zero_grad()
    loss = model(torch.randn(5, 3)).pow(2).mean()
    torch.stack([*losses, loss]).mean().backward()
    losses.append(loss.detach())
    optimizer.step()
