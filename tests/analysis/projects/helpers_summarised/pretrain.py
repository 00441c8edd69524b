"""A weight scaled by the project's ``same`` once, before the loop: the product's graph is built
once, and the second step's backward goes through it again."""

import torch
from utils import same


def main():
    torch.manual_seed(0)
    weight = torch.randn(3, requires_grad=True)
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scaled = same(weight)
    for _ in range(3):
        loss = scaled.pow(2).sum()
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()


if __name__ == "__main__":
    main()
