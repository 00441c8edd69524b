"""REINFORCE that keeps each episode's log-probabilities in a memory and replays every stored
episode after each new one. Detaching the memory would leave the update of an earlier episode
with nothing that requires grad; emptying it would end the replay: none is offered."""

from collections import deque

import torch
from torch import nn


def update(optimizer, log_probs, returns):
    loss = -(torch.stack(log_probs) * (returns - returns.mean())).sum()
    optimizer.zero_grad()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()


torch.manual_seed(0)
policy = nn.Linear(3, 2)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
memory = deque(maxlen=3)
for episode in range(3):
    log_probs = []
    for t in range(4):
        dist = torch.distributions.Categorical(logits=policy(torch.randn(3)))
        log_probs.append(dist.log_prob(dist.sample()))
    memory.append((log_probs, torch.randn(4)))
    for stored, returns in memory:
        update(optimizer, stored, returns)
