"""A recurrent tracker that keeps its hidden state on ``self`` and reads it again for its output."""

import torch
from torch import nn


class Tracker(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.cell = nn.GRUCell(size, size)
        self.head = nn.Linear(size, 1)
        self.hidden = torch.zeros(4, size)

    def forward(self, inputs):
        previous = self.hidden.detach()  # truncated backpropagation: one step at a time
        self.hidden = self.cell(inputs, previous)
        return self.head(self.hidden)


torch.manual_seed(0)
model = Tracker(8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(3):
    x, y = torch.randn(4, 8), torch.randn(4, 1)
    loss = (model(x) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
