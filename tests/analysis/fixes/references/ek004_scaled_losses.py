"""Two heads on one trunk, each loss scaled by a GradScaler (a no-op on CPU) and backwarded."""

import torch
import torch.nn as nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(10, 16), nn.ReLU())
head_a = nn.Linear(16, 3)
head_b = nn.Linear(16, 1)
params = [*trunk.parameters(), *head_a.parameters(), *head_b.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)
scaler = torch.amp.GradScaler("cpu", enabled=False)
x = torch.randn(16, 10)
labels = torch.randint(0, 3, (16,))
values = torch.randn(16, 1)

for step in range(3):
    optimizer.zero_grad()
    features = trunk(x)
    loss_a = nn.functional.cross_entropy(head_a(features), labels)
    loss_b = nn.functional.mse_loss(head_b(features), values)
    scaler.scale(loss_a).backward(retain_graph=True)
    scaler.scale(loss_b).backward()
    scaler.step(optimizer)
    scaler.update()
