"""Written from https://discuss.pytorch.org/t/how-to-use-two-optimizers-for-one-loss/28765
(two losses of one forward pass, each stepped by its own optimizer): the backwards sit in the
project's helper, so the finding is on the second call, with the fix that recomputes the shared
forward pass before it."""

import torch
from torch import nn
from utils import step


def main():
    torch.manual_seed(0)
    encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
    first = torch.optim.SGD(head.parameters(), lr=0.1)
    second = torch.optim.SGD(encoder.parameters(), lr=0.1)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    for _ in range(3):
        features = torch.tanh(encoder(x))
        fit = (head(features) - y).pow(2).mean()
        step(fit, first)
        step(features.pow(2).mean(), second)  # error: [shared-graph-backward]


if __name__ == "__main__":
    main()
