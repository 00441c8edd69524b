"""A GRU cell's state carried through the project's helpers from one step to the next: ``same``
passes the graph on (a new node over it) and nothing cuts it, so the second step's backward, in
the helper ``step``, goes through the first step's freed graph. ``share`` returns a float."""

import torch
from torch import nn
from utils import same, share, step


def main():
    torch.manual_seed(0)
    cell = nn.GRUCell(3, 5)
    opt = torch.optim.SGD(cell.parameters(), lr=0.1)
    state = torch.zeros(2, 5)
    margin = 0.0
    for _ in range(4):
        state = same(cell(torch.randn(2, 3), state))
        loss = state.pow(2).mean() + margin
        step(loss, opt)  # error: [carried-graph-backward]
        margin = share(state)


if __name__ == "__main__":
    main()
