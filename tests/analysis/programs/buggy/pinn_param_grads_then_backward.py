"""Physics-informed network for u'' = -pi^2 sin(pi x) on [0, 1].

Derivatives of u wrt x are taken with create_graph=True (fine).  For
monitoring, the script also takes the gradients of the total loss wrt the
parameters with autograd.grad, then calls loss.backward() on the same loss.
"""

import math

import torch
import torch.nn as nn


class PINN(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(1, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(), nn.Linear(width, 1)
        )

    def forward(self, x):
        return self.body(x)


def pde_residual(model, x):
    x = x.clone().requires_grad_(True)
    u = model(x)
    du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    d2u = torch.autograd.grad(du.sum(), x, create_graph=True)[0]
    return d2u + math.pi**2 * torch.sin(math.pi * x)


def main():
    torch.manual_seed(0)
    model = PINN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x_boundary = torch.tensor([[0.0], [1.0]])
    u_boundary = torch.zeros(2, 1)
    history = {"pde": [], "bc": [], "grad_norm": []}

    for it in range(3):
        x_col = torch.rand(32, 1)
        optimizer.zero_grad()
        loss_pde = pde_residual(model, x_col).pow(2).mean()
        loss_bc = (model(x_boundary) - u_boundary).pow(2).mean()
        loss = loss_pde + 10.0 * loss_bc

        grads = torch.autograd.grad(loss, list(model.parameters()))
        history["grad_norm"].append(torch.sqrt(sum(g.pow(2).sum() for g in grads)).item())
        loss.backward()  # error: [double-backward]
        optimizer.step()

        history["pde"].append(loss_pde.item())
        history["bc"].append(loss_bc.item())
        print(f"iter {it}: pde={loss_pde.item():.3e} bc={loss_bc.item():.3e}")
    return history


if __name__ == "__main__":
    main()
