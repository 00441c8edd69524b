"""DQN on a toy contextual environment: dataclass transitions in a replay buffer, a generator
that yields sampled minibatches, ``@torch.no_grad()`` action selection and a target network.
Observations are created without grad, so the buffer holds no graph.
"""

import random
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass(frozen=True)
class Transition:
    obs: torch.Tensor
    action: int
    reward: float
    next_obs: torch.Tensor


class Replay:
    def __init__(self, capacity=256):
        self.items, self.capacity = [], capacity

    def push(self, t):
        self.items = (self.items + [t])[-self.capacity :]

    def minibatches(self, n_batches, bs):
        for _ in range(n_batches):
            batch = random.sample(self.items, bs)
            yield (
                torch.stack([t.obs for t in batch]),
                torch.tensor([t.action for t in batch]),
                torch.tensor([t.reward for t in batch]),
                torch.stack([t.next_obs for t in batch]),
            )


@torch.no_grad()
def act(q_net, obs, eps):
    if random.random() < eps:
        return random.randrange(3)
    return q_net(obs).argmax().item()


def main(gamma=0.9):
    random.seed(0)
    torch.manual_seed(0)
    q_net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))
    target = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3))
    target.load_state_dict(q_net.state_dict())
    optimizer = torch.optim.Adam(q_net.parameters(), lr=1e-3)
    replay = Replay()
    obs = torch.randn(4)
    for step in range(80):
        action = act(q_net, obs, eps=0.3)
        next_obs = torch.randn(4)
        replay.push(Transition(obs, action, float(obs[action] > 0), next_obs))
        obs = next_obs
    for update, (o, a, r, o2) in enumerate(replay.minibatches(6, 16)):
        q = q_net(o).gather(1, a.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            y = r + gamma * target(o2).max(1).values
        loss = F.smooth_l1_loss(q, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if update % 3 == 2:
            target.load_state_dict(q_net.state_dict())
        print(update, round(loss.item(), 4))


if __name__ == "__main__":
    main()
