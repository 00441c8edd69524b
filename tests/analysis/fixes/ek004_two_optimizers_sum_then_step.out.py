"""Actor and critic heads on one shared body, each with its own optimizer, stepped one after the
other from the same forward pass."""

import torch
from torch import nn

torch.manual_seed(0)
body, policy, value = nn.Linear(4, 8), nn.Linear(8, 2), nn.Linear(8, 1)
actor_opt = torch.optim.SGD([*body.parameters(), *policy.parameters()], lr=0.05)
critic_opt = torch.optim.SGD(value.parameters(), lr=0.05)
obs, rewards = torch.randn(10, 4), torch.randn(10)

for step in range(3):
    features = torch.tanh(body(obs))
    values = value(features).squeeze(-1)
    log_probs = torch.log_softmax(policy(features), -1)[:, 0]
    actor_loss = -(log_probs * (rewards - values).detach()).mean()
    critic_loss = (rewards - values).pow(2).mean()
    actor_opt.zero_grad()
    critic_opt.zero_grad()
    (actor_loss + critic_loss).backward()
    actor_opt.step()
    critic_opt.step()
