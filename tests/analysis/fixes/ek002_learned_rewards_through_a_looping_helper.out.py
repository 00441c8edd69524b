"""PPO epochs on one rollout whose rewards come from a learned reward model; the advantages are
computed once, before the epochs, by a helper that fills a fresh tensor step by step."""

import torch
from torch import nn

torch.manual_seed(0)
policy = nn.Linear(4, 2)
reward_model = nn.Linear(4, 1)
optimizer = torch.optim.Adam([*policy.parameters(), *reward_model.parameters()], lr=1e-2)
states = torch.randn(12, 4)
actions = torch.randint(0, 2, (12,))


def discounted(rewards, gamma=0.9):
    returns, running = torch.zeros_like(rewards), torch.tensor(0.0)
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


rewards = reward_model(states).squeeze(-1)
advantages = discounted(rewards)
for epoch in range(3):
    rewards = reward_model(states).squeeze(-1)
    advantages = discounted(rewards)
    log_probs = torch.log_softmax(policy(states), -1).gather(1, actions[:, None]).squeeze(1)
    loss = -(log_probs * advantages).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
