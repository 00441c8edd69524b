"""Track the epoch's loss in a running total, and backward the total by mistake."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(4)]

total = 0
for inputs, targets in batches:
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    total = total + loss.item()
    loss.backward()
    optimizer.step()
print(f"mean loss {float(total) / len(batches):.4f}")
