"""Dreamer-style behaviour learning: the actor is trained by backpropagating imagined
lambda-returns through a learned latent dynamics model; the value function regresses
on the same imagined trajectory.

Report: https://github.com/danijar/dreamer/issues/3 -- the actor loss is backpropagated
through the imagined sequence, and the value loss is not: "we stop the gradients around
the value targets", and the value model trains on the imagined states as inputs only.
Skipping those stops makes the value loss's backward walk the imagined rollout that the
actor's backward has just freed.
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
        values = value(states).squeeze(-1)
        returns = lambda_returns(rewards, values)
        actor_loss = -returns.mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
        value_loss = (values[:-1] - returns).pow(2).mean()
        value_opt.zero_grad()
        value_loss.backward()  # error: [shared-graph-backward]
        value_opt.step()
        print(it, round(actor_loss.item(), 4), round(value_loss.item(), 4))


if __name__ == "__main__":
    main()
