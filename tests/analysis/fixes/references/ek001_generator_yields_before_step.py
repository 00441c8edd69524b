"""Training steps as a generator that backwards, yields, and steps when resumed; the consumer
backwards large losses once more, before the step, to weigh them twice."""

import torch
import torch.nn as nn


def train_steps(model, optimizer, batches):
    for inputs, targets in batches:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(inputs), targets)
        loss.backward(retain_graph=True)
        yield loss
        optimizer.step()


torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
for loss in train_steps(model, optimizer, batches):
    if loss.item() > 0.0:
        loss.backward()
