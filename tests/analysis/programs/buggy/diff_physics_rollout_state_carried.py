"""Learning a controller through a differentiable point-mass simulator.

The controller is updated after every simulated step, but the state is fed
into the next step as-is.

Real report of this mechanism: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
The tutorial's RNN raises this error once `h_state = h_state.data` is removed, i.e. when the
hidden state returned for one batch is fed into the next batch with its graph.
"""

import torch
from torch import nn

DT = 0.1


def simulate(state, force, mass=1.0, drag=0.1):
    pos, vel = state[:, :2], state[:, 2:]
    acc = force / mass - drag * vel * vel.abs()
    vel = vel + DT * acc
    pos = pos + DT * vel
    return torch.cat([pos, vel], dim=1)


class Controller(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 2))

    def forward(self, state, goal):
        return 2.0 * torch.tanh(self.net(torch.cat([state, goal], dim=1)))


def train(episodes=2, horizon=3):
    torch.manual_seed(0)
    ctrl = Controller()
    opt = torch.optim.Adam(ctrl.parameters(), lr=1e-2)
    for ep in range(episodes):
        state = torch.zeros(4, 4)
        goal = torch.rand(4, 2)
        for t in range(horizon):
            force = ctrl(state, goal)
            state = simulate(state, force)
            loss = (state[:, :2] - goal).pow(2).sum(1).mean() + 1e-3 * force.pow(2).mean()
            opt.zero_grad()
            loss.backward()  # error: [carried-graph-backward]
            opt.step()
        print(f"episode {ep}: final distance {loss.item():.4f}")


if __name__ == "__main__":
    train()
