"""Vanilla policy gradient in the Spinning Up layout: the algorithm takes an
`actor_critic` constructor and builds `ac = actor_critic(obs_dim, act_dim)` (issue 13,
mechanism 1). The buffer stores plain observations, actions and returns; every update
recomputes log-probabilities and values, so each backward owns its graph.
"""

import torch
import torch.nn as nn
from torch.distributions import Categorical


class MLPActorCritic(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=32):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, act_dim))
        self.v = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def step(self, obs):
        with torch.no_grad():
            return Categorical(logits=self.pi(obs)).sample()


def collect(ac, g, steps=32, obs_dim=4):
    obs = torch.randn(steps, obs_dim, generator=g)
    act = ac.step(obs)
    ret = (act == (obs[:, 0] > 0).long()).float()
    return {"obs": obs, "act": act, "ret": ret}


def vpg(actor_critic=MLPActorCritic, obs_dim=4, act_dim=2, epochs=5, train_v_iters=4, seed=0):
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    ac = actor_critic(obs_dim, act_dim)
    pi_optimizer = torch.optim.Adam(ac.pi.parameters(), lr=3e-3)
    vf_optimizer = torch.optim.Adam(ac.v.parameters(), lr=1e-2)
    for epoch in range(epochs):
        data = collect(ac, g)
        with torch.no_grad():
            adv = data["ret"] - ac.v(data["obs"]).squeeze(-1)
        pi_optimizer.zero_grad()
        loss_pi = -(Categorical(logits=ac.pi(data["obs"])).log_prob(data["act"]) * adv).mean()
        loss_pi.backward()
        pi_optimizer.step()
        for _ in range(train_v_iters):
            vf_optimizer.zero_grad()
            loss_v = (ac.v(data["obs"]).squeeze(-1) - data["ret"]).pow(2).mean()
            loss_v.backward()
            vf_optimizer.step()
        print(epoch, round(data["ret"].mean().item(), 3), round(loss_v.item(), 4))


if __name__ == "__main__":
    vpg()
