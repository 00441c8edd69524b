"""REINFORCE whose training function receives the policy class and builds the network
itself (the `net = net_cls(width)` shape of issue 13, mechanism 1).

Constructing a module creates parameters (leaves), not a graph; every episode builds
its own graph from those parameters and frees it with one backward.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class MLPPolicy(nn.Module):
    def __init__(self, n_obs, width, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_obs, width), nn.Tanh(), nn.Linear(width, n_actions))

    def forward(self, obs):
        return Categorical(logits=self.net(obs))


class GuessTheSign:
    """One-step episodes: the reward is 1 when the action matches the sign of obs[0]."""

    def __init__(self, seed=0):
        self.g = torch.Generator().manual_seed(seed)

    def reset(self):
        self.obs = torch.randn(3, generator=self.g)
        return self.obs

    def step(self, action):
        return float(action == int(self.obs[0] > 0))


def train(policy_cls, env, width=16, episodes=30, batch=8):
    policy = policy_cls(3, width)
    optimizer = torch.optim.Adam(policy.parameters(), lr=2e-2)
    rewards = []
    for _ in range(episodes):
        log_probs, returns = [], []
        for _ in range(batch):
            dist = policy(env.reset())
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            returns.append(env.step(action.item()))
        returns_t = torch.tensor(returns)
        loss = -(torch.stack(log_probs) * (returns_t - returns_t.mean())).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        rewards.append(returns_t.mean().item())
    return rewards


if __name__ == "__main__":
    torch.manual_seed(0)
    history = train(MLPPolicy, GuessTheSign())
    print("first", sum(history[:5]) / 5, "last", sum(history[-5:]) / 5)
