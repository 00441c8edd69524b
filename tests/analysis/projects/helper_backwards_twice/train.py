"""Written from https://discuss.pytorch.org/t/how-to-use-two-optimizers-for-one-loss/28765
(one loss stepped by two optimizers, each wanting its own backward)."""

import torch
from steps import backward_for_both
from torch import nn


def main():
    torch.manual_seed(0)
    encoder, head = nn.Linear(4, 8), nn.Linear(8, 1)
    first = torch.optim.SGD(encoder.parameters(), lr=0.1)
    second = torch.optim.SGD(head.parameters(), lr=0.1)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    loss = (head(torch.tanh(encoder(x))) - y).pow(2).mean()
    backward_for_both(loss, first, second)  # error: [double-backward]


if __name__ == "__main__":
    main()
