"""Fit a small regression; the forward pass was hoisted out of the loop by mistake."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(16, 4)
targets = inputs.sum(dim=1, keepdim=True)

for epoch in range(5):
    output = model(inputs)
    optimizer.zero_grad()
    loss = criterion(output, targets)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: {loss.item():.4f}")
