"""An LSTM over chunks of one sequence, with its state unpacked as (h, c) and fed back."""

import torch
import torch.nn as nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=3, hidden_size=6)
head = nn.Linear(6, 1)
optimizer = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-3)
series = torch.randn(30, 1, 3)

h, c = torch.zeros(1, 1, 6), torch.zeros(1, 1, 6)
for start in range(0, 24, 6):
    chunk = series[start : start + 6]
    features, (h, c) = lstm(chunk, (h, c))
    loss = head(features).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    h, c = h.detach(), c.detach()
