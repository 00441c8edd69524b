"""REINFORCE with episodes produced by a generator function. The agent's per-episode lists of
log-probs and rewards are cleared with ``del ...[:]`` after each update, so every update
backwards only its own episode's graph.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class Agent(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(obs_dim, 24), nn.ReLU(), nn.Linear(24, n_actions))
        self.saved_log_probs = []
        self.rewards = []

    def act(self, obs):
        dist = Categorical(logits=self.policy(obs))
        action = dist.sample()
        self.saved_log_probs.append(dist.log_prob(action))
        return action.item()


def episodes(agent, n_episodes, length, g):
    for _ in range(n_episodes):
        for _ in range(length):
            obs = torch.randn(4, generator=g)
            action = agent.act(obs)
            agent.rewards.append(1.0 if action == int(obs.sum() > 0) else 0.0)
        yield sum(agent.rewards)


def finish_episode(agent, optimizer, gamma=0.99):
    returns, running = [], 0.0
    for r in reversed(agent.rewards):
        running = r + gamma * running
        returns.insert(0, running)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = torch.stack([-lp * ret for lp, ret in zip(agent.saved_log_probs, returns)]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del agent.saved_log_probs[:]
    del agent.rewards[:]
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    agent = Agent()
    optimizer = torch.optim.Adam(agent.policy.parameters(), lr=1e-2)
    for i, total in enumerate(episodes(agent, 5, 10, g)):
        print(i, total, round(finish_episode(agent, optimizer), 4))
