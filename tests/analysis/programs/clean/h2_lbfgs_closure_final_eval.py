"""Fit a small MLP to a 1-D function with L-BFGS. The closure builds a fresh graph on every
call; the loss returned by ``step`` is only read with ``.item()``, and the final gradient
check calls the closure again rather than backwarding the returned loss.
"""

import torch
import torch.nn as nn


def target_fn(x):
    return torch.sin(3 * x) + 0.3 * x**2


def build(hidden=16):
    return nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))


def fit(model, x, y, outer_steps=4):
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=10, history_size=10)
    calls = {"n": 0}

    def closure():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        calls["n"] += 1
        return loss

    history = []
    for _ in range(outer_steps):
        loss = optimizer.step(closure)
        history.append(loss.item())
    final = closure()
    grad_norm = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
    return history, final.item(), grad_norm.item(), calls["n"]


def main():
    torch.manual_seed(0)
    x = torch.linspace(-2, 2, 50).unsqueeze(-1)
    y = target_fn(x)
    model = build()
    history, final, grad_norm, calls = fit(model, x, y)
    print("history", [round(h, 5) for h in history])
    print(f"final {final:.5f} grad norm {grad_norm:.5f} closure calls {calls}")


if __name__ == "__main__":
    main()
