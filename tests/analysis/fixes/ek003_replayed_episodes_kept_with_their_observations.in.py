"""REINFORCE that keeps each episode's log-probabilities in a memory and replays every stored
episode after each new one: the first replay of an episode frees the graph its log-probabilities
hang on. The observations and actions they were computed from are still at hand when each is
stored, so they are computed again, by the current policy, where an update reads them."""

from collections import deque

import torch
from torch import nn


def update(optimizer, log_probs, returns):
    loss = -(torch.stack(log_probs) * (returns - returns.mean())).sum()
    optimizer.zero_grad()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()


torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
memory = deque(maxlen=3)
for episode in range(3):
    log_probs = []
    for t in range(4):
        obs = torch.randn(3)
        dist = torch.distributions.Categorical(logits=policy(obs))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
    memory.append((log_probs, torch.randn(4)))
    for stored, returns in memory:
        update(optimizer, stored, returns)
