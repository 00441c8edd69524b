"""REINFORCE on a short corridor that reuses the last few episodes for every update.

Report: https://github.com/pytorch/examples/issues/151 -- the reporter called the
reinforce example's finish_episode() several times on sampled past experiences to get
more updates out of each episode, and the second update raised "Trying to backward
through the graph second time".

Each stored episode keeps the log-probability tensors produced while acting; the
graph behind them is freed by the first update that uses them.
"""

import random
from collections import deque

import torch
import torch.nn as nn
from torch.distributions import Categorical


class Corridor:
    def __init__(self, length=5):
        self.length = length

    def reset(self):
        self.pos = 0
        return self.observe()

    def observe(self):
        return nn.functional.one_hot(torch.tensor(self.pos), self.length + 1).float()

    def step(self, action):
        self.pos = max(0, min(self.length, self.pos + (1 if action == 1 else -1)))
        done = self.pos == self.length
        return self.observe(), (1.0 if done else -0.05), done


class Policy(nn.Module):
    def __init__(self, n_obs, n_actions=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_obs, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return Categorical(logits=self.body(obs))


def discounted(rewards, gamma=0.95):
    g, out = 0.0, []
    for r in reversed(rewards):
        g = r + gamma * g
        out.insert(0, g)
    return torch.tensor(out)


def update(optimizer, log_probs, returns):
    loss = -(torch.stack(log_probs) * (returns - returns.mean())).sum()
    optimizer.zero_grad()
    loss.backward()  # error: [carried-graph-backward]
    optimizer.step()
    return loss.item()


def main():
    random.seed(0)
    torch.manual_seed(0)
    env, policy = Corridor(), Policy(6)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    memory = deque(maxlen=4)
    for episode in range(5):
        obs, done, log_probs, rewards = env.reset(), False, [], []
        while not done and len(rewards) < 12:
            dist = policy(obs)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            obs, reward, done = env.step(action.item())
            rewards.append(reward)
        memory.append((log_probs, discounted(rewards)))
        for stored_log_probs, returns in memory:
            last = update(optimizer, stored_log_probs, returns)
        print(f"episode {episode}: {len(rewards)} steps, loss {last:.3f}")


if __name__ == "__main__":
    main()
