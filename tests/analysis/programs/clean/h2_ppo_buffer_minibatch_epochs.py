"""PPO with a rollout buffer filled under ``torch.no_grad()``: stored log-probs and values
carry no graph, and every minibatch of every epoch recomputes the policy forward pass.
"""

import torch
import torch.nn as nn
from torch.distributions import Normal


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim=3, act_dim=1):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, act_dim))
        self.log_std = nn.Parameter(torch.zeros(act_dim))
        self.value = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))

    def dist(self, obs):
        return Normal(self.mu(obs), self.log_std.exp())


class Buffer:
    def __init__(self):
        self.store = {"obs": [], "act": [], "logp": [], "rew": [], "val": []}

    def add(self, **items):
        for key, value in items.items():
            self.store[key].append(value)

    def get(self):
        data = {k: torch.stack(v) for k, v in self.store.items()}
        adv = data["rew"] - data["val"]
        data["adv"] = (adv - adv.mean()) / (adv.std() + 1e-8)
        data["ret"] = data["rew"]
        return data


def collect(policy, g, n=64):
    buf = Buffer()
    with torch.no_grad():
        for _ in range(n):
            obs = torch.randn(3, generator=g)
            d = policy.dist(obs)
            act = d.sample()
            reward = -(act - obs[:1]).pow(2).sum()
            buf.add(obs=obs, act=act, logp=d.log_prob(act).sum(), rew=reward, val=policy.value(obs).squeeze())
    return buf.get()


def update(policy, optimizer, data, epochs=3, mb=16, clip=0.2):
    n = data["obs"].size(0)
    for _ in range(epochs):
        for idx in torch.randperm(n).split(mb):
            d = policy.dist(data["obs"][idx])
            ratio = (d.log_prob(data["act"][idx]).sum(-1) - data["logp"][idx]).exp()
            adv = data["adv"][idx]
            pi_loss = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
            v_loss = (policy.value(data["obs"][idx]).squeeze(-1) - data["ret"][idx]).pow(2).mean()
            loss = pi_loss + 0.5 * v_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    policy = GaussianPolicy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    for it in range(2):
        print(it, update(policy, optimizer, collect(policy, g)))
