"""REDQ-style critic update: an ensemble of Q networks, each with its own optimizer,
backwarded one by one against a shared target computed under no_grad.

From https://github.com/watchernyu/REDQ/issues/4: summing the ensemble's losses or
backwarding each separately gives the same gradients -- the losses share no graph (the
common target is a constant), so separate backwards are correct here.
"""

import random

import torch
import torch.nn as nn

OBS, ACT, BATCH, N_Q, M = 4, 2, 32, 5, 2


def make_q():
    return nn.Sequential(nn.Linear(OBS + ACT, 32), nn.ReLU(), nn.Linear(32, 1))


def main(updates=4, gamma=0.99):
    random.seed(0)
    torch.manual_seed(0)
    qs = [make_q() for _ in range(N_Q)]
    targets = [make_q() for _ in range(N_Q)]
    for q, q_t in zip(qs, targets):
        q_t.load_state_dict(q.state_dict())
    opts = [torch.optim.Adam(q.parameters(), lr=3e-4) for q in qs]
    actor = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, ACT), nn.Tanh())
    for update in range(updates):
        obs, act = torch.randn(BATCH, OBS), torch.rand(BATCH, ACT) * 2 - 1
        reward = -(act - obs[:, :ACT].tanh()).pow(2).sum(-1, keepdim=True)
        next_obs = obs + 0.1 * torch.randn(BATCH, OBS)
        with torch.no_grad():
            next_in = torch.cat([next_obs, actor(next_obs)], -1)
            subset = random.sample(range(N_Q), M)
            next_q = torch.min(torch.stack([targets[i](next_in) for i in subset]), 0).values
            y = reward + gamma * next_q
        losses = []
        for q, opt in zip(qs, opts):
            loss = (q(torch.cat([obs, act], -1)) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(round(loss.item(), 3))
        with torch.no_grad():
            for q, q_t in zip(qs, targets):
                for p, p_t in zip(q.parameters(), q_t.parameters()):
                    p_t.lerp_(p, 0.005)
        print(update, losses)


if __name__ == "__main__":
    main()
