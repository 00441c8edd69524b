"""A value network regressed on bootstrapped targets from a Polyak-averaged copy of itself, whose
soft update runs under ``torch.no_grad()``, written by hand as a lerp."""

import copy

import torch
from torch import nn

torch.manual_seed(0)
value = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
target = copy.deepcopy(value)
target.requires_grad_(False)
optimizer = torch.optim.SGD(value.parameters(), lr=0.05)
states = torch.randn(64, 4)
rewards = states[:, :1].sin()
for step in range(6):
    bootstrap = rewards + 0.9 * target(states.roll(1, 0))
    loss = (value(states) - bootstrap).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for online, averaged in zip(value.parameters(), target.parameters()):
            averaged.lerp_(online, 0.1)
    print(f"step {step}: loss {loss.item():.4f}")
