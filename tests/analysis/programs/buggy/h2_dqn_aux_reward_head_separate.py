"""DQN with an auxiliary reward-prediction head on the shared encoder.

Transitions are sampled from a replay buffer; the TD loss and the auxiliary loss are
backwarded one after the other through the same encoder output.

Real report of this mechanism: https://github.com/pytorch/rl/issues/1187
TD3's actor loss and q-value loss come from one shared computation; backwarding the q-value
loss after the actor loss raises this error.
"""

import random
from collections import deque

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNet(nn.Module):
    def __init__(self, obs_dim=5, n_actions=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 32), nn.ReLU())
        self.q_head = nn.Linear(32, n_actions)
        self.reward_head = nn.Linear(32 + n_actions, 1)


class ReplayBuffer:
    def __init__(self, capacity=200):
        self.data = deque(maxlen=capacity)

    def push(self, *transition):
        self.data.append(transition)

    def sample(self, n):
        batch = random.sample(self.data, n)
        obs, act, rew, nxt = zip(*batch)
        return torch.stack(obs), torch.tensor(act), torch.tensor(rew), torch.stack(nxt)


def fill(buffer, n=64):
    for _ in range(n):
        obs = torch.randn(5)
        action = random.randrange(3)
        reward = float(obs[action] > 0)
        buffer.push(obs, action, reward, torch.randn(5))


def main(gamma=0.9):
    random.seed(0)
    torch.manual_seed(0)
    online, target = QNet(), QNet()
    target.load_state_dict(online.state_dict())
    optimizer = torch.optim.Adam(online.parameters(), lr=1e-3)
    buffer = ReplayBuffer()
    fill(buffer)
    for step in range(4):
        obs, act, rew, nxt = buffer.sample(16)
        features = online.encoder(obs)
        q = online.q_head(features).gather(1, act.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            q_next = target.q_head(target.encoder(nxt)).max(1).values
        td_loss = F.smooth_l1_loss(q, rew + gamma * q_next)
        aux_in = torch.cat([features, F.one_hot(act, 3).float()], dim=1)
        aux_loss = F.mse_loss(online.reward_head(aux_in).squeeze(1), rew)
        optimizer.zero_grad()
        td_loss.backward()
        aux_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        print(step, td_loss.item(), aux_loss.item())


if __name__ == "__main__":
    main()
