"""A model that builds its L2 penalty once, in `__init__`, from a method that also receives the
weights; every training step adds it to the loss (written from
https://github.com/shenweichen/DeepCTR-Torch/issues/69). Detached, the penalty would be a constant
that regularises nothing; the lines of `__init__` that build it become a method, called again
before each step reads it."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, l2=1e-2):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 1)
        self.l2 = l2
        self.rebuild_penalty()

    def rebuild_penalty(self):
        self.penalty = torch.zeros(())
        self.add_penalty(self.embedding.parameters(), self.l2)

    def add_penalty(self, weights, l2):
        self.penalty = self.penalty + l2 * sum(torch.sum(w * w) for w in weights)

    def forward(self, x):
        return self.head(self.embedding(x)).squeeze(-1)


torch.manual_seed(0)
model = Model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randint(10, (32,))
y = torch.randn(32)
for step in range(3):
    model.rebuild_penalty()
    total = (model(x) - y).pow(2).mean() + model.penalty
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
