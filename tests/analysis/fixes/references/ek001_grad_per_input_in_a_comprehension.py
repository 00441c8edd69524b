"""Reference for ek001_grad_per_input_in_a_comprehension: one ``torch.autograd.grad`` call takes the
gradient with respect to every input at once."""

import torch
import torch.nn.functional as F
from torch import nn


class TwoInputNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.left, self.right = nn.Linear(4, 8), nn.Linear(3, 8)
        self.head = nn.Linear(16, 2)

    def forward(self, a, b):
        return self.head(torch.relu(torch.cat([self.left(a), self.right(b)], dim=1)))


torch.manual_seed(0)
model = TwoInputNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
a, b = torch.randn(16, 4), torch.randn(16, 3)
labels = (a[:, 0] + b[:, 0] > 0).long()
for step in range(3):
    loss = F.cross_entropy(model(a, b), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

inputs = [a[:4].clone().requires_grad_(True), b[:4].clone().requires_grad_(True)]
selected = model(*inputs)[:, 1].sum()
grads = torch.autograd.grad(selected, inputs)
print([(g * x).sum().item() for g, x in zip(grads, inputs)])
