"""DQN agent in the DeepRL layout: the network comes from `config.network_fn()` and the
optimizer from `config.optimizer_fn(params)` (issue 13, mechanism 1). Calling a factory
builds a module; each learning step builds and frees its own graph.
"""

import random
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class DQNAgent:
    def __init__(self, config):
        self.config = config
        self.network = config.network_fn()
        self.target_network = config.network_fn()
        self.target_network.load_state_dict(self.network.state_dict())
        self.optimizer = config.optimizer_fn(self.network.parameters())
        self.replay = []
        self.total_steps = 0

    def step(self, transition):
        self.replay.append(transition)
        self.total_steps += 1
        if len(self.replay) < self.config.batch_size:
            return None
        s, a, r, s2 = (torch.stack(x) for x in zip(*random.sample(self.replay, self.config.batch_size)))
        with torch.no_grad():
            target = r + self.config.discount * self.target_network(s2).max(1).values
        q = self.network(s).gather(1, a.unsqueeze(1)).squeeze(1)
        loss = F.mse_loss(q, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        if self.total_steps % self.config.target_every == 0:
            self.target_network.load_state_dict(self.network.state_dict())
        return loss.item()


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    config = SimpleNamespace(batch_size=8, discount=0.9, target_every=5)
    config.network_fn = lambda: nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 2))
    config.optimizer_fn = lambda params: torch.optim.RMSprop(params, lr=1e-3)
    agent = DQNAgent(config)
    for t in range(20):
        s, a = torch.randn(3), torch.tensor(random.randrange(2))
        r = torch.tensor(float(a.item() == int(s[0] > 0)))
        loss = agent.step((s, a, r, torch.randn(3)))
        if loss is not None and t % 5 == 0:
            print(t, round(loss, 4))
