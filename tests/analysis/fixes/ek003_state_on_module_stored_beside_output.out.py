"""A module keeps its LSTM state on ``self.hidden``, stored beside the output by a tuple target
(written from https://github.com/sgadgil6/cnslab_fmri/issues/4): each batch reads back the state
the previous batch stored, with its graph."""

import torch
import torch.nn as nn


class Reader(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 6, batch_first=True)
        self.head = nn.Linear(6, 1)
        self.hidden = (torch.zeros(1, 4, 6), torch.zeros(1, 4, 6))

    def forward(self, x):
        out, self.hidden = self.lstm(x, (self.hidden.detach() if isinstance(self.hidden, torch.Tensor) else tuple(t.detach() for t in self.hidden)))
        return self.head(out[:, -1]).squeeze(-1)


torch.manual_seed(0)
model = Reader()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(4, 5, 3)
    loss = (model(x) - x[:, :, 0].mean(1)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
