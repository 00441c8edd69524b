"""Fit a damped oscillator's parameters to noisy observations with L-BFGS and a closure
that recomputes the loss on every call.
"""

import math

import torch


class DampedOscillator(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.log_amp = torch.nn.Parameter(torch.tensor(0.0))
        self.log_decay = torch.nn.Parameter(torch.tensor(-1.0))
        self.omega = torch.nn.Parameter(torch.tensor(2.0))
        self.phase = torch.nn.Parameter(torch.tensor(0.0))

    def forward(self, t):
        return (
            self.log_amp.exp() * torch.exp(-self.log_decay.exp() * t) * torch.cos(self.omega * t + self.phase)
        )


def main():
    torch.manual_seed(0)
    t = torch.linspace(0, 4, 60)
    y = 1.5 * torch.exp(-0.3 * t) * torch.cos(2.5 * t + 0.2) + 0.02 * torch.randn_like(t)

    model = DampedOscillator()
    optimizer = torch.optim.LBFGS(
        model.parameters(), lr=0.5, max_iter=10, history_size=5, line_search_fn="strong_wolfe"
    )
    n_evals = 0

    def closure():
        nonlocal n_evals
        n_evals += 1
        optimizer.zero_grad()
        loss = torch.mean((model(t) - y) ** 2)
        loss.backward()
        return loss

    for outer in range(3):
        loss = optimizer.step(closure)
        print(f"outer {outer}: mse {loss.item():.5f} (evals so far: {n_evals})")

    with torch.no_grad():
        print(
            "amp",
            model.log_amp.exp().item(),
            "decay",
            model.log_decay.exp().item(),
            "omega",
            model.omega.item(),
            "phase",
            math.remainder(model.phase.item(), 2 * math.pi),
        )


if __name__ == "__main__":
    main()
