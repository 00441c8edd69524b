"""Actor-critic with a shared trunk and two optimizers: the actor loss is backwarded with
``retain_graph=True`` and the critic loss, the last pass through the trunk, without it.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class SharedAC(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh())
        self.pi = nn.Linear(32, n_actions)
        self.v = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.trunk(obs)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


def rollout(model, g, steps=8):
    obs_list, actions, rewards = [], [], []
    obs = torch.randn(4, generator=g)
    with torch.no_grad():
        for _ in range(steps):
            dist, _ = model(obs)
            a = dist.sample()
            obs_list.append(obs)
            actions.append(a)
            rewards.append(float(a.item() == int(obs[0] > 0)))
            obs = torch.randn(4, generator=g)
    return torch.stack(obs_list), torch.stack(actions), torch.tensor(rewards)


def discounted(rewards, gamma=0.9):
    out, running = [], 0.0
    for r in reversed(rewards.tolist()):
        running = r + gamma * running
        out.insert(0, running)
    return torch.tensor(out)


def main(updates=4):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = SharedAC()
    actor_opt = torch.optim.Adam([*model.trunk.parameters(), *model.pi.parameters()], lr=3e-3)
    critic_opt = torch.optim.Adam(model.v.parameters(), lr=1e-2)
    for update in range(updates):
        obs, actions, rewards = rollout(model, g)
        returns = discounted(rewards)
        dist, values = model(obs)
        advantage = returns - values
        actor_loss = -(dist.log_prob(actions) * advantage.detach()).mean()
        critic_loss = advantage.pow(2).mean()
        actor_opt.zero_grad()
        critic_opt.zero_grad()
        actor_loss.backward(retain_graph=True)
        critic_loss.backward()
        actor_opt.step()
        critic_opt.step()
        print(update, round(actor_loss.item(), 4), round(critic_loss.item(), 4))


if __name__ == "__main__":
    main()
