"""Actor-critic with a replay memory that stores each step's log-probability with its graph; the
update samples old transitions. Storing them detached (or detaching the memory) would leave the
actor, which the optimizer owns, reached only through them, so it would stop learning; emptying
the memory would end the replay. The log-probabilities are computed again at sampling time, from
the state and action they were computed from."""

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
    memory.append((dist.log_prob(action), state, float(action) - 0.5))
    batch = random.sample(memory, min(len(memory), 2))
    log_probs = torch.stack([item[0] for item in batch])
    values = critic(torch.stack([item[1] for item in batch])).squeeze(-1)
    delta = torch.tensor([item[2] for item in batch]) - values
    loss = -(log_probs * delta.detach()).mean() + delta.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()
