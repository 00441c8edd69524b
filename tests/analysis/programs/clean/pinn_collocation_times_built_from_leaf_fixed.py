"""Physics-informed network for the decay ODE du/dt = -k u with u(0) = 1: the residual
at random collocation times uses du/dt from autograd, the network also takes a fixed
spatial feature x.

Twin of buggy/pinn_collocation_times_built_from_leaf.py, fixed by making the
collocation times a leaf: they are computed as plain data and then marked as
requiring grad, so they carry no graph and each step's backward has its own.
"""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stack = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x, t):
        return self.stack(torch.cat([t, x], dim=1))


def main(steps=5, k=0.7):
    torch.manual_seed(0)
    net = Net()
    x = torch.FloatTensor(20, 1).uniform_(-1, 1)
    t = (1 + 3 * torch.rand(20, 1)).requires_grad_()
    t0 = torch.zeros(1, 1)
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for step in range(steps):
        u = net(x, t)
        du_dt = torch.autograd.grad(u.sum(), t, create_graph=True)[0]
        residual = torch.mean(torch.square(du_dt + k * u))
        initial = torch.mean(torch.square(net(x[:1], t0) - 1.0))
        loss = residual + initial
        opt.zero_grad()
        loss.backward()
        assert all(p.grad is not None for p in net.parameters())
        opt.step()
        print(f"step {step}: residual {residual.item():.5f} initial {initial.item():.5f}")


if __name__ == "__main__":
    main()
