"""Adversarial weight perturbation: after the clean backward, each attack step nudges the first
layer along its gradient's sign and backwards the loss again, to accumulate the gradients at the
perturbed weights; the attack loop runs the perturbed forward but scores the clean ``logits``
(the mistake of https://github.com/xiangking/ark-nlp/issues/46)."""

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
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    backup = model[0].weight.detach().clone()
    for t in range(2):
        with torch.no_grad():
            model[0].weight.add_(0.01 * model[0].weight.grad.sign())
        perturbed = model(x)
        adv_loss = F.cross_entropy(logits, y)
        adv_loss.backward()
    with torch.no_grad():
        model[0].weight.copy_(backup)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
