"""A keras-rl style agent whose own `forward(observation)` picks an action and whose own
`backward(reward, terminal)` stores the transition and trains (issue 13, mechanism 4:
an object's `backward` method is not Tensor.backward). Each training step inside it
builds a fresh graph and backwards it once.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class SarsaLikeAgent:
    def __init__(self, n_obs=4, n_actions=2, batch_size=8, gamma=0.9):
        self.model = nn.Sequential(nn.Linear(n_obs, 32), nn.ReLU(), nn.Linear(32, n_actions))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.memory, self.batch_size, self.gamma = [], batch_size, gamma
        self.recent_observation = self.recent_action = None

    def forward(self, observation):
        with torch.no_grad():
            q = self.model(observation)
        action = random.randrange(q.numel()) if random.random() < 0.1 else int(q.argmax())
        self.recent_observation, self.recent_action = observation, action
        return action

    def backward(self, reward, terminal, next_observation):
        self.memory.append((self.recent_observation, self.recent_action, reward, next_observation, terminal))
        if len(self.memory) < self.batch_size:
            return None
        s, a, r, s2, done = zip(*random.sample(self.memory, self.batch_size))
        s, s2 = torch.stack(s), torch.stack(s2)
        with torch.no_grad():
            target = torch.tensor(r) + self.gamma * (1 - torch.tensor(done, dtype=torch.float)) * self.model(s2).max(1).values
        q = self.model(s).gather(1, torch.tensor(a).unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    agent = SarsaLikeAgent()
    observation = torch.randn(4)
    for t in range(24):
        action = agent.forward(observation)
        next_observation = torch.randn(4)
        metrics = agent.backward(float(action == int(observation[0] > 0)), t % 6 == 5, next_observation)
        observation = next_observation
        if metrics is not None and t % 6 == 0:
            print(t, round(metrics, 4))
