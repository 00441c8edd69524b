"""A latent rollout trained for temporal consistency: each step's prediction is pulled towards the
discounted prediction of the step before, and the optimizer steps after every transition; the
previous prediction still hangs on the graph the previous transition's backward freed."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for episode in range(3):
    x = torch.randn(8, 4)
    previous = None
    loss_sum = 0
    for t in range(4):
        prediction = model(x)
        if previous is not None:
            loss = (prediction - 0.9 * previous).pow(2).mean()
            loss_sum = loss_sum + loss
        previous = prediction
        x = x + 0.1 * prediction.detach()
    optimizer.zero_grad()
    loss_sum.backward()
    optimizer.step()
    print(f"episode {episode}: last prediction norm {previous.norm().item():.4f}")
