"""REINFORCE on a short walk: the policy keeps each episode's log-probabilities and rewards on
itself, and the update at the end of an episode never empties them."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)
        self.saved_log_probs, self.rewards = [], []

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


def update(policy, optimizer):
    returns = torch.tensor(policy.rewards).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(policy.saved_log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del policy.saved_log_probs[:]  # the next episode starts its own lists
    del policy.rewards[:]
    return loss.item()


torch.manual_seed(0)
policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(3):
    position = 0
    for t in range(4):
        dist = policy(F.one_hot(torch.tensor(position), 4).float())
        action = dist.sample()
        policy.saved_log_probs.append(dist.log_prob(action))
        position = min(3, max(0, position + (1 if action.item() == 1 else -1)))
        policy.rewards.append(1.0 if position == 3 else -0.1)
    print(f"episode {episode}: loss {update(policy, optimizer):.4f}")
