"""REINFORCE on a short corridor that reuses the last few episodes for every update.

Twin of buggy/rl_reinforce_replayed_episode_log_probs.py, fixed as the replay-buffer
policy-gradient libraries do it: the memory keeps observations and actions (plain data,
no graph), and each update recomputes the log-probabilities with the current policy.
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


def update(policy, optimizer, observations, actions, returns):
    log_probs = policy(observations).log_prob(actions)
    loss = -(log_probs * (returns - returns.mean())).sum()
    optimizer.zero_grad()
    loss.backward()
    assert all(p.grad is not None for p in policy.parameters())
    optimizer.step()
    return loss.item()


def main():
    random.seed(0)
    torch.manual_seed(0)
    env, policy = Corridor(), Policy(6)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    memory = deque(maxlen=4)
    for episode in range(5):
        obs, done, observations, actions, rewards = env.reset(), False, [], [], []
        while not done and len(rewards) < 12:
            with torch.no_grad():
                action = policy(obs).sample()
            observations.append(obs)
            actions.append(action)
            obs, reward, done = env.step(action.item())
            rewards.append(reward)
        memory.append((torch.stack(observations), torch.stack(actions), discounted(rewards)))
        for stored_obs, stored_actions, returns in memory:
            last = update(policy, optimizer, stored_obs, stored_actions, returns)
        print(f"episode {episode}: {len(rewards)} steps, loss {last:.3f}")


if __name__ == "__main__":
    main()
