"""Regression with an input-gradient smoothness penalty whose form alternates between
steps: the data loss is backwarded with ``retain_graph=True`` because the penalty's
``autograd.grad(..., create_graph=True)`` -- written in both branches of an ``if/else``
-- goes back through the same forward graph (negative for issue 13, mechanism 5: the
retain is needed on every path).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def main(steps=4, penalty_weight=0.1):
    torch.manual_seed(0)
    x = torch.randn(48, 3)
    y = torch.sin(x).sum(1, keepdim=True)
    model = nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    history = []
    for step in range(steps):
        inputs = x.clone().requires_grad_()
        out = model(inputs)
        loss = F.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        if step % 2 == 0:
            (grad_in,) = torch.autograd.grad(out.sum(), inputs, create_graph=True)
        else:
            (grad_in,) = torch.autograd.grad((out * out).sum(), inputs, create_graph=True)
        penalty = penalty_weight * grad_in.pow(2).mean()
        penalty.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"step {step} loss {loss.item():.4f} penalty {penalty.item():.4f}")
    with torch.no_grad():
        final = F.mse_loss(model(x), y).item()
    assert final < history[0], (final, history)


if __name__ == "__main__":
    main()
