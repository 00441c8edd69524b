"""Several steps on one batch, with the loss computed once before the loop."""

import torch
import torch.nn as nn


def train(model: nn.Module, inputs: torch.Tensor, labels: torch.Tensor, steps: int) -> float:
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(inputs), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
    x = torch.randn(20, 6)
    y = torch.randint(0, 3, (20,))
    print(train(net, x, y, steps=4))
