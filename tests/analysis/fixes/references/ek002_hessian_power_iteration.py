"""Written by hand: every Hessian-vector product keeps the graph of the create_graph gradient."""

import torch
from torch import nn


def top_eigenvalue(model, x, y, iters=4):
    params = list(model.parameters())
    loss = (model(x) - y).pow(2).mean()
    grads = torch.autograd.grad(loss, params, create_graph=True)
    vec = [torch.ones_like(p) for p in params]
    eig = 0.0
    for _ in range(iters):
        hv = torch.autograd.grad(grads, params, grad_outputs=vec, retain_graph=True)
        norm = torch.sqrt(sum((h * h).sum() for h in hv))
        eig = sum((h * v).sum() for h, v in zip(hv, vec)).item()
        vec = [h / (norm + 1e-12) for h in hv]
    return eig


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
for step in range(3):
    optimizer.zero_grad()
    (model(x) - y).pow(2).mean().backward()
    optimizer.step()
    print(step, top_eigenvalue(model, x, y))
