"""An agent collects the log-probabilities of an episode on itself; nobody empties the list."""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class Agent:
    def __init__(self):
        self.policy = nn.Linear(4, 2)
        self.log_probs = []

    def act(self, obs):
        dist = Categorical(logits=self.policy(obs))
        action = dist.sample()
        self.log_probs.append(dist.log_prob(action))
        return action.item()


def update(agent, optimizer, reward):
    loss = -reward * torch.stack(agent.log_probs).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del agent.log_probs[:]


torch.manual_seed(0)
agent = Agent()
optimizer = torch.optim.Adam(agent.policy.parameters(), lr=1e-2)
for episode in range(3):
    for t in range(4):
        agent.act(torch.randn(4))
    update(agent, optimizer, reward=1.0)
