"""The grad mode switched by the project's own helpers (AI4Finance-Foundation/ElegantRL switches
autograd off with `torch.set_grad_enabled(False)` for all but its update loops): the critic's values
behind the advantages are computed with grad off, so they carry no graph, and the actor's backward
after the critic's is fine. The switch outlives the helper's call, and no summary of the helper
may forget it (checked alone, without `utils.py`, the critic is not known and nothing is
reported either)."""

import torch
from torch import nn
from utils import evaluation_mode, make_critic, training_mode

torch.manual_seed(0)
critic, actor = make_critic(), nn.Linear(4, 2)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
evaluation_mode()
for _ in range(2):
    states, actions, rewards = torch.randn(16, 4), torch.randn(16, 2), torch.randn(16)
    values = critic(states).squeeze(1)
    advantages = rewards - values
    returns = advantages + values
    training_mode()
    for _ in range(3):
        critic_loss = (critic(states).squeeze(1) - returns).pow(2).mean()
        critic_optimizer.zero_grad()
        critic_loss.backward()
        critic_optimizer.step()
        actor_loss = (advantages * (actor(states) - actions).pow(2).sum(1)).mean()
        actor_optimizer.zero_grad()
        actor_loss.backward()
        actor_optimizer.step()
    evaluation_mode()
training_mode()
