"""Physics-informed neural network for the viscous Burgers equation u_t + u u_x = nu u_xx.

Derivatives come from torch.autograd.grad(create_graph=True); the composite loss is
backpropagated once per iteration; an L-BFGS polishing phase follows Adam.
"""

import math

import torch
import torch.nn as nn

NU = 0.01 / math.pi


class MLP(nn.Module):
    def __init__(self, width=16, depth=3):
        super().__init__()
        layers, d = [], 2
        for _ in range(depth):
            layers += [nn.Linear(d, width), nn.Tanh()]
            d = width
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, t, x):
        return self.net(torch.cat([t, x], dim=1))


def residual(model, t, x):
    t.requires_grad_(True)
    x.requires_grad_(True)
    u = model(t, x)
    u_t, u_x = torch.autograd.grad(u, (t, x), torch.ones_like(u), create_graph=True)
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    return u_t + u * u_x - NU * u_xx


def total_loss(model, n_col=32):
    t_c, x_c = torch.rand(n_col, 1), torch.rand(n_col, 1) * 2 - 1
    f = residual(model, t_c, x_c)
    x_0 = torch.linspace(-1, 1, 16).unsqueeze(1)
    u_0 = model(torch.zeros_like(x_0), x_0)
    t_b = torch.rand(8, 1)
    x_b = torch.where(torch.rand(8, 1) < 0.5, -1.0, 1.0)
    u_b = model(t_b, x_b)
    return f.pow(2).mean() + (u_0 + torch.sin(math.pi * x_0)).pow(2).mean() + u_b.pow(2).mean()


def main():
    torch.manual_seed(0)
    model = MLP()
    adam = torch.optim.Adam(model.parameters(), lr=1e-3)
    for it in range(3):
        adam.zero_grad()
        loss = total_loss(model)
        loss.backward()
        adam.step()
        print(f"adam {it}: {loss.item():.4e}")

    lbfgs = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=3)

    def closure():
        lbfgs.zero_grad()
        loss = total_loss(model)
        loss.backward()
        return loss

    print("lbfgs:", lbfgs.step(closure).item())


if __name__ == "__main__":
    main()
