"""Advantages computed once per batch from the critic, then reused over several mini-epochs that
also train the critic through a fresh value loss."""

import torch
from torch import nn

torch.manual_seed(0)
actor = nn.Linear(4, 3)
critic = nn.Linear(4, 1)
optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=1e-2)
obs = torch.randn(16, 4)
actions = torch.randint(0, 3, (16,))
returns = torch.randn(16)

values = critic(obs).squeeze(-1)
advantages = returns - values
for epoch in range(3):
    log_probs = torch.log_softmax(actor(obs), -1).gather(1, actions[:, None]).squeeze(1)
    policy_loss = -(log_probs * advantages).mean()
    value_loss = (critic(obs).squeeze(-1) - returns).pow(2).mean()
    optimizer.zero_grad()
    (policy_loss + 0.5 * value_loss).backward()
    optimizer.step()
