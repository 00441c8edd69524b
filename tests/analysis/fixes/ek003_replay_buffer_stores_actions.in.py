"""An off-policy critic trained from a replay buffer whose stored actions carry the actor's graph."""

import random

import torch
from torch import nn

random.seed(0)
torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
critic = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-2)
buffer = []
obs = torch.randn(2)
for t in range(8):
    action = actor(obs)
    reward = torch.tensor([float(-(action.item() - 0.5) ** 2)])
    buffer.append((obs, action, reward))
    obs = torch.randn(2)
    if len(buffer) < 3:
        continue
    batch = random.sample(buffer, 3)
    s, a, r = (torch.stack(column) for column in zip(*batch))
    critic_loss = (critic(torch.cat([s, a], -1)) - r).pow(2).mean()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
    print(t, round(critic_loss.item(), 4))
