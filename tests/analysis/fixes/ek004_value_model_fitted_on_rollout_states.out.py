"""A controller trained through a differentiable simulator's rollout, with a value head that bootstraps
the rollout's return; the value head is then regressed on the rollout's states, reading the values
and returns the controller's backward already went through."""

import torch
from torch import nn

torch.manual_seed(0)
dynamics = nn.Linear(4 + 1, 4)
dynamics.requires_grad_(False)
controller = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
controller_opt = torch.optim.Adam(controller.parameters(), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
for step in range(3):
    state = torch.randn(8, 4)
    visited = [state]
    for t in range(4):
        state = state + 0.1 * dynamics(torch.cat([state, controller(state)], -1))
        visited.append(state)
    states = torch.stack(visited)
    values = critic(states).squeeze(-1)
    returns = -states[1:].pow(2).sum(-1) + 0.9 * values[1:]
    controller_loss = -returns.mean()
    controller_opt.zero_grad()
    controller_loss.backward()
    controller_opt.step()
    critic_loss = (critic(states.detach()).squeeze(-1)[:-1] - returns.detach()).pow(2).mean()
    critic_opt.zero_grad()
    critic_loss.backward()  # error: [shared-graph-backward]
    critic_opt.step()
    print(f"step {step}: controller {controller_loss.item():.4f} critic {critic_loss.item():.4f}")
