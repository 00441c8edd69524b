"""Written by hand, as DeepCTR-Torch v0.2.2 fixed it: the model records which weights are
regularised and with what strength, and every step computes the penalty from the current weights."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, l2=1e-2):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 1)
        self.regularised = [(list(self.embedding.parameters()), l2)]

    def penalty(self):
        return sum(l2 * sum(torch.sum(w * w) for w in weights) for weights, l2 in self.regularised)

    def forward(self, x):
        return self.head(self.embedding(x)).squeeze(-1)


torch.manual_seed(0)
model = Model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randint(10, (32,))
y = torch.randn(32)
for step in range(3):
    total = (model(x) - y).pow(2).mean() + model.penalty()
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
