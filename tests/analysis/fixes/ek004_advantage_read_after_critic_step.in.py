"""A contextual bandit agent that fits its critic at every step and its policy once per episode:
each step's advantage is backwarded for the critic, whose optimizer then steps, and the policy's
surrogate keeps weighting log-probabilities by those same advantages."""

import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
policy = nn.Linear(3, 2)
critic = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
policy_opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
critic_opt = torch.optim.SGD(critic.parameters(), lr=1e-2)
for episode in range(3):
    surrogates = []
    for t in range(4):
        obs = torch.randn(3)
        dist = Categorical(logits=policy(obs))
        action = dist.sample()
        reward = float(action.item() == int(obs[0] > 0))
        value = critic(obs).squeeze()
        advantage = reward - value
        critic_opt.zero_grad()
        advantage.pow(2).backward()
        critic_opt.step()
        surrogates.append(dist.log_prob(action) * advantage)
    policy_loss = -torch.stack(surrogates).mean()
    policy_opt.zero_grad()
    policy_loss.backward()
    policy_opt.step()
    print(f"episode {episode}: policy loss {policy_loss.item():.4f}")
