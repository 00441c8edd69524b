"""A leaky integrator in front of a classifier: the module keeps its potential on itself from
one batch to the next, and the potential starts as the number 0.0 (as spiking and reservoir
layers often write it); nothing cuts the previous batch's graph out of it."""

import torch
from torch import nn


class LeakyIntegrator(nn.Module):
    def __init__(self, width=6, leak=0.5):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.leak = leak
        self.potential = 0.0

    def forward(self, x):
        self.potential = self.leak * (self.potential.detach() if isinstance(self.potential, torch.Tensor) else self.potential) + self.fc(x)
        return torch.tanh(self.potential)


torch.manual_seed(0)
integrator, head = LeakyIntegrator(), nn.Linear(6, 2)
optimizer = torch.optim.SGD([*integrator.parameters(), *head.parameters()], lr=0.1)
for batch in range(4):
    x, y = torch.randn(8, 6), torch.randint(2, (8,))
    loss = nn.functional.cross_entropy(head(integrator(x)), y)
    optimizer.zero_grad()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()
    print(f"batch {batch}: loss {loss.item():.4f}")
