"""A notebook's sanity-check cell: one backward prints the gradients of the first batch and the
optimizer's first step applies them."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
inputs = torch.randn(48, 5)
targets = inputs @ torch.linspace(1.0, -1.0, 5).unsqueeze(1) + 0.5
model = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

loss = F.mse_loss(model(inputs[:16]), targets[:16])
loss.backward()
for name, p in model.named_parameters():
    print(name, p.grad.abs().mean().item())
optimizer.step()

for epoch in range(3):
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
