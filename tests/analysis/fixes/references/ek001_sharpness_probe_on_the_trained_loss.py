"""Sharpness logging: the curvature probe runs a forward of its own and takes its gradients with
``torch.autograd.grad`` from it, as the maintainer advises."""

import torch
import torch.nn.functional as F
from torch import nn


def sharpness(model, inputs, labels, params, direction):
    loss = F.cross_entropy(model(inputs), labels)
    grads = torch.autograd.grad(loss, params, create_graph=True)
    along = sum((g * d).sum() for g, d in zip(grads, direction))
    hvp = torch.autograd.grad(along, params)
    return sum((h * d).sum() for h, d in zip(hvp, direction)).item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
inputs, labels = torch.randn(40, 6), torch.randint(0, 3, (40,))
for step in range(3):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(inputs), labels)
    loss.backward()
    direction = [-p.grad.clone() for p in params]
    curvature = sharpness(model, inputs, labels, params, direction)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, curvature {curvature:.4f}")
