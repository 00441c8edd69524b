"""Reference for ek003_replayed_episodes_kept_with_their_observations: each stored episode keeps
its observations and actions (plain data), and every update computes their log-probabilities with
the current policy."""

from collections import deque

import torch
from torch import nn


def update(optimizer, observations, actions, returns):
    log_probs = torch.distributions.Categorical(logits=policy(observations)).log_prob(actions)
    loss = -(log_probs * (returns - returns.mean())).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
memory = deque(maxlen=3)
for episode in range(3):
    observations, actions = [], []
    for t in range(4):
        obs = torch.randn(3)
        dist = torch.distributions.Categorical(logits=policy(obs))
        action = dist.sample()
        observations.append(obs)
        actions.append(action)
    memory.append((torch.stack(observations), torch.stack(actions), torch.randn(4)))
    for stored_observations, stored_actions, returns in memory:
        update(optimizer, stored_observations, stored_actions, returns)
