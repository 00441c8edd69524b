"""Sharpness logging: after each backward the loop measures the curvature of the loss along the
negative gradient, with a Hessian-vector product taken from the step's own ``loss``, whose graph
``loss.backward()`` has just freed (the report and the maintainer's advice, a forward of its own:
https://github.com/noahgolmant/pytorch-hessian-eigenthings/issues/13)."""

import torch
import torch.nn.functional as F
from torch import nn


def sharpness(loss, params, direction):
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
    curvature = sharpness(loss, params, direction)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, curvature {curvature:.4f}")
