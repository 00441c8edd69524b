"""A two-pass update over three task losses: the weights move up the first pass's gradient, the
tasks are evaluated again, and the second sum starts from where the first one ended."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(16, 5)
    targets = (x[:, :3] > 0).float()
    output = model(x)
    loss = 0
    for t in range(3):
        loss += F.binary_cross_entropy_with_logits(output[:, t], targets[:, t])
    optimizer.zero_grad()
    loss.backward()
    with torch.no_grad():
        moves = [0.05 * p.grad for p in model.parameters()]
        for p, move in zip(model.parameters(), moves):
            p.add_(move)
    optimizer.zero_grad()
    output = model(x)
    loss = 0
    for t in range(3):
        loss += F.binary_cross_entropy_with_logits(output[:, t], targets[:, t])
    loss.backward()
    with torch.no_grad():
        for p, move in zip(model.parameters(), moves):
            p.sub_(move)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
