"""Dreamer-style behaviour learning: the actor is trained by backpropagating imagined
lambda-returns through a learned latent dynamics model; the value function regresses
on the same imagined trajectory.

Twin of buggy/rl_dreamer_value_loss_on_imagined_trajectory.py, fixed as the report's
answer describes Dreamer: the value model is fitted on the imagined states as inputs
(detached) towards stopped-gradient lambda-return targets, so its loss is a per-step
regression with a graph of its own.
"""

import torch
import torch.nn as nn

LATENT, ACT, HORIZON, BATCH = 8, 2, 5, 16


class LatentDynamics(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = nn.Sequential(nn.Linear(LATENT + ACT, 32), nn.ELU(), nn.Linear(32, LATENT))
        self.reward = nn.Linear(LATENT, 1)

    def imagine(self, start, actor):
        states, rewards, state = [start], [], start
        for _ in range(HORIZON):
            state = state + self.step(torch.cat([state, actor(state)], -1))
            states.append(state)
            rewards.append(self.reward(state).squeeze(-1))
        return torch.stack(states), torch.stack(rewards)


def lambda_returns(rewards, values, gamma=0.95, lam=0.9):
    out, last = [], values[-1]
    for t in reversed(range(rewards.shape[0])):
        last = rewards[t] + gamma * ((1 - lam) * values[t + 1] + lam * last)
        out.insert(0, last)
    return torch.stack(out)


def main(iterations=3):
    torch.manual_seed(0)
    model = LatentDynamics()
    for p in model.parameters():
        p.requires_grad_(False)
    actor = nn.Sequential(nn.Linear(LATENT, 32), nn.ELU(), nn.Linear(32, ACT), nn.Tanh())
    value = nn.Sequential(nn.Linear(LATENT, 32), nn.ELU(), nn.Linear(32, 1))
    actor_opt = torch.optim.Adam(actor.parameters(), lr=8e-5)
    value_opt = torch.optim.Adam(value.parameters(), lr=8e-5)
    for it in range(iterations):
        start = torch.randn(BATCH, LATENT)
        states, rewards = model.imagine(start, actor)
        returns = lambda_returns(rewards, value(states).squeeze(-1))
        actor_loss = -returns.mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        value_loss = (value(states.detach()).squeeze(-1)[:-1] - returns.detach()).pow(2).mean()
        value_opt.zero_grad()
        value_loss.backward()
        assert all(p.grad is not None for p in value.parameters())
        value_opt.step()
        print(it, round(actor_loss.item(), 4), round(value_loss.item(), 4))


if __name__ == "__main__":
    main()
