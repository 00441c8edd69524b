"""Truncated BPTT over a long sequence with a GRU; the hidden state is fed back as is."""

import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.GRU(input_size=5, hidden_size=8)
head = nn.Linear(8, 5)
params = list(rnn.parameters()) + list(head.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
sequence = torch.randn(40, 2, 5)

hidden = torch.zeros(1, 2, 8)
for start in range(0, 30, 10):
    chunk = sequence[start : start + 10]
    target = sequence[start + 1 : start + 11]
    optimizer.zero_grad()
    output, hidden = rnn(chunk, hidden.detach())
    loss = nn.functional.mse_loss(head(output), target)
    loss.backward()
    optimizer.step()
    print(f"chunk at {start}: {loss.item():.4f}")
