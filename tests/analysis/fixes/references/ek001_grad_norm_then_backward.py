"""Log the gradient norm with autograd.grad, then backward for the optimizer step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
inputs = torch.randn(32, 8)
targets = torch.randn(32, 1)

for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    grad_norm = torch.sqrt(sum((p.grad**2).sum() for p in model.parameters()))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grad norm {grad_norm.item():.4f}")
