"""Actor-critic on a short episode: the policy loss weights log-probabilities by the critic's stacked
values, and the value loss backwards those values again."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=1e-2)
for episode in range(3):
    log_probs, values, rewards = [], [], []
    for t in range(5):
        state = torch.randn(4)
        dist = Categorical(logits=actor(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        values.append(critic(state).squeeze(-1))
        rewards.append(float(action.item() == t % 2))
    returns, values = torch.tensor(rewards).flip(0).cumsum(0).flip(0), torch.stack(values)
    policy_loss = -((returns - values.detach()) * torch.stack(log_probs)).sum()
    value_loss = F.mse_loss(values, returns)
    optimizer.zero_grad()
    policy_loss.backward()
    value_loss.backward()
    optimizer.step()
    print(f"episode {episode}: value loss {value_loss.item():.4f}")
