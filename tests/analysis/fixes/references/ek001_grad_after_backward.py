"""Backward for the step, then ask autograd for the same gradients to log their norm."""

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
    grads = [p.grad.detach().clone() for p in model.parameters()]
    grad_norm = torch.sqrt(sum((g**2).sum() for g in grads))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grad norm {grad_norm.item():.4f}")
