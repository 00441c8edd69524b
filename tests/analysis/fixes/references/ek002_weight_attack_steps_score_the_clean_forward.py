"""Adversarial weight perturbation: after the clean backward, each attack step nudges the first
layer along its gradient's sign and adds the gradient of the loss at the perturbed weights, then
the weights are restored and the optimizer steps on the sum."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 4)
y = torch.randint(3, (32,))
for step in range(3):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    backup = model[0].weight.detach().clone()
    for t in range(2):
        with torch.no_grad():
            model[0].weight.add_(0.01 * model[0].weight.grad.sign())
        F.cross_entropy(model(x), y).backward()
    with torch.no_grad():
        model[0].weight.copy_(backup)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
