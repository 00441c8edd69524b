"""A backward, a log line, and a second backward of the same loss left behind after a refactor."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)

optimizer.zero_grad()
loss = model(x).pow(2).mean()
loss.backward()
print(f"loss {loss.item():.4f}")
optimizer.step()
