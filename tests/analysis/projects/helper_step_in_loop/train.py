"""Written from https://stackoverflow.com/questions/48274929/pytorch-runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the
(the loss's graph built once, before the loop): here the backward sits in the project's helper,
so the finding is on the call that reaches it, with the fix that recomputes the loss in the loop."""

import torch
from torch import nn
from utils import step


def main():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    loss = (model(x) - y).pow(2).mean()
    for _ in range(3):
        step(loss, optimizer)  # error: [pre-loop-graph-backward]


if __name__ == "__main__":
    main()
