"""Reference for ek003_transition_losses_summed_over_the_rollout: the transitions' consistency losses
are collected over the rollout and backwarded together, with one step per rollout."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for episode in range(3):
    x = torch.randn(8, 4)
    previous, losses = None, []
    for t in range(4):
        prediction = model(x)
        if previous is not None:
            losses.append((prediction - 0.9 * previous).pow(2).mean())
        previous = prediction
        x = x + 0.1 * prediction.detach()
    optimizer.zero_grad()
    sum(losses).backward()
    optimizer.step()
    print(f"episode {episode}: last prediction norm {previous.norm().item():.4f}")
