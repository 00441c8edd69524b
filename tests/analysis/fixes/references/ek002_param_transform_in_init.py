"""A layer that scales its weight once in __init__ and uses the scaled copy in every step."""

import torch
import torch.nn as nn


class ScaledLinear(nn.Module):
    def __init__(self, features: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features, features) * 0.1)

    def forward(self, x):
        return x @ (2 * self.weight)


def main() -> None:
    torch.manual_seed(0)
    layer = ScaledLinear(4)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.01)
    for _ in range(3):
        optimizer.zero_grad()
        loss = layer(torch.randn(2, 4)).pow(2).mean()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
