"""PPO-style epochs over one rollout whose log-probabilities were recorded with the graph."""

import torch
import torch.nn as nn
from torch.distributions import Categorical


def rollout(policy, steps=8):
    observations, actions, log_probs = [], [], []
    for _ in range(steps):
        obs = torch.randn(4)
        dist = Categorical(logits=policy(obs))
        action = dist.sample()
        observations.append(obs)
        actions.append(action)
        log_probs.append(dist.log_prob(action))
    return torch.stack(observations), torch.stack(actions), torch.stack(log_probs)


torch.manual_seed(0)
policy = nn.Linear(4, 2)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
with torch.no_grad():
    obs, actions, old_log_probs = rollout(policy)
for epoch in range(3):
    ratio = torch.exp(Categorical(logits=policy(obs)).log_prob(actions) - old_log_probs)
    loss = -torch.clamp(ratio, 0.8, 1.2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
