"""REINFORCE agent that keeps its episode's log-probabilities on itself: `begin_episode`
empties them and `end_episode` backwards their loss. The runner always calls
`begin_episode` before acting (issue 13, mechanism 3: a step method is not replayed
twice without the reset its caller always runs in between).
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class Agent:
    def __init__(self, n_obs=4, n_actions=2, gamma=0.95):
        self.policy = nn.Sequential(nn.Linear(n_obs, 32), nn.Tanh(), nn.Linear(32, n_actions))
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-2)
        self.gamma = gamma
        self.log_probs, self.rewards = [], []

    def begin_episode(self):
        self.log_probs, self.rewards = [], []

    def act(self, obs):
        dist = Categorical(logits=self.policy(obs))
        action = dist.sample()
        self.log_probs.append(dist.log_prob(action))
        return action.item()

    def end_episode(self):
        g, returns = 0.0, []
        for r in reversed(self.rewards):
            g = r + self.gamma * g
            returns.insert(0, g)
        returns = torch.tensor(returns)
        loss = -(torch.stack(self.log_probs) * (returns - returns.mean())).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def run(agent, episodes=4, horizon=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    for episode in range(episodes):
        agent.begin_episode()
        for _ in range(horizon):
            obs = torch.randn(4, generator=g)
            action = agent.act(obs)
            agent.rewards.append(float(action == int(obs[2] > 0)))
        print(episode, sum(agent.rewards), round(agent.end_episode(), 4))


if __name__ == "__main__":
    torch.manual_seed(0)
    run(Agent())
