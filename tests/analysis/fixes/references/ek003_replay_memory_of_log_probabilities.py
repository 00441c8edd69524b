"""Reference for ek003_replay_memory_of_log_probabilities: the memory keeps the state and the action
taken (plain data), and each update computes the log-probabilities of the sampled actions with the
current actor."""

import random

import torch
from torch import nn

random.seed(0)
torch.manual_seed(0)
actor = nn.Linear(3, 2)
critic = nn.Linear(3, 1)
optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=1e-2)
memory = []
for t in range(4):
    state = torch.randn(3)
    dist = torch.distributions.Categorical(logits=actor(state))
    action = dist.sample()
    memory.append((action, state, float(action) - 0.5))
    batch = random.sample(memory, min(len(memory), 2))
    states = torch.stack([item[1] for item in batch])
    actions = torch.stack([item[0] for item in batch])
    log_probs = torch.distributions.Categorical(logits=actor(states)).log_prob(actions)
    values = critic(states).squeeze(-1)
    delta = torch.tensor([item[2] for item in batch]) - values
    loss = -(log_probs * delta.detach()).mean() + delta.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
