"""DDPG on a one-dimensional reach task with a small replay buffer.

Twin of buggy/rl_ddpg_replay_stores_actor_output.py, fixed as the report's pull request
does: the action is detached before it is stored, so the buffer holds plain data and
each update builds its own graph from the sampled transitions.
"""

import random

import torch
import torch.nn as nn


class Reach1D:
    def reset(self):
        self.x = torch.zeros(1)
        return self.x.clone()

    def step(self, action):
        self.x = (self.x + 0.3 * action).clamp(-2, 2)
        return self.x.clone(), -abs(self.x.item() - 1.0)


def main(steps=12, batch_size=4, gamma=0.9):
    random.seed(0)
    torch.manual_seed(0)
    env = Reach1D()
    actor = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1), nn.Tanh())
    critic = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    buffer = []
    obs = env.reset()
    for t in range(steps):
        action = (actor(obs) + 0.2 * torch.randn(1)).clamp(-1, 1)
        next_obs, reward = env.step(action.item())
        buffer.append((obs, action.detach(), torch.tensor([reward]), next_obs))
        obs = next_obs
        if len(buffer) < batch_size:
            continue
        batch = random.sample(buffer, batch_size)
        s, a, r, s2 = (torch.stack(column) for column in zip(*batch))
        with torch.no_grad():
            target = r + gamma * critic(torch.cat([s2, actor(s2)], -1))
        critic_loss = (critic(torch.cat([s, a], -1)) - target).pow(2).mean()
        critic_opt.zero_grad()
        critic_loss.backward()
        assert critic[0].weight.grad.abs().sum() > 0
        critic_opt.step()
        actor_loss = -critic(torch.cat([s, actor(s)], -1)).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        print(t, round(critic_loss.item(), 4))


if __name__ == "__main__":
    main()
