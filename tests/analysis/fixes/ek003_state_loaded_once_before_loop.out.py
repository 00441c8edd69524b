"""A virtual copy of a model, loaded once before the loop and updated out of place every step."""

import torch
from torch import nn


class VirtualCopy:
    def load(self, model):
        self.weights = [p.detach().clone().requires_grad_(True) for p in model.parameters()]

    def __call__(self, x):
        w, b = self.weights
        return x @ w.T + b

    def update(self, grads):
        self.weights = [w - 0.1 * g for w, g in zip(self.weights, grads)]


torch.manual_seed(0)
model = nn.Linear(3, 1)
scale = nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([scale], lr=0.1)
copy = VirtualCopy()
copy.load(model)
for step in range(3):
    copy.load(model)
    inner = (copy(torch.randn(5, 3)) * scale).pow(2).mean()
    copy.update(torch.autograd.grad(inner, copy.weights, create_graph=True))
    loss = copy(torch.randn(5, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
