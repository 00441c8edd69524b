"""PPO epochs over observations whose latent part a trainable encoder computed inside the
environment's observation step (which also advances the environment's history). Detaching the
stored observations would stop the encoder, which the optimizer owns, from ever learning, and the
observation step cannot be re-run: no fix is offered."""

import torch
from torch import nn


class HistoryEnv:
    def __init__(self, encoder):
        self.encoder = encoder
        self.history = torch.zeros(4, 6)

    def observe(self):
        fresh = torch.randn(4, 3)
        self.history = torch.cat([self.history[:, 3:], fresh], 1)
        return torch.cat([fresh, self.encoder(self.history)], -1)


torch.manual_seed(0)
encoder = nn.Linear(6, 2)
actor = nn.Linear(5, 2)
optimizer = torch.optim.Adam([*encoder.parameters(), *actor.parameters()], lr=1e-2)
env = HistoryEnv(encoder)
observations = torch.cat([env.observe() for _ in range(4)])
targets = torch.randn(16, 2)
for epoch in range(3):
    loss = (actor(observations) - targets).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()  # error: [pre-loop-graph-backward]
    optimizer.step()
