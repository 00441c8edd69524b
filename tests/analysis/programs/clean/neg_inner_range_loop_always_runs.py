"""Unrolled refinement: a recurrent refiner improves its estimate for ten fixed steps and
the loss is taken on the last estimate after the inner ``for _ in range(10)`` loop, which
always runs, so the loss is always this iteration's (negative for issue 13, mechanism 3).
"""

import torch
import torch.nn as nn


class Refiner(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.update = nn.Sequential(nn.Linear(2 * d, 32), nn.Tanh(), nn.Linear(32, d))

    def forward(self, estimate, observation):
        return estimate + 0.1 * self.update(torch.cat([estimate, observation], dim=1))


def main(epochs=4):
    torch.manual_seed(0)
    target = torch.randn(32, 6)
    observation = target + 0.3 * torch.randn(32, 6)
    refiner = Refiner()
    optimizer = torch.optim.Adam(refiner.parameters(), lr=5e-3)
    history = []
    for epoch in range(epochs):
        estimate = torch.zeros(32, 6)
        for _ in range(10):
            estimate = refiner(estimate, observation)
            loss = (estimate - target).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"epoch {epoch} loss {loss.item():.4f}")
    assert history[-1] < history[0]


if __name__ == "__main__":
    main()
