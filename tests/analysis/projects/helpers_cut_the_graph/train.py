"""A GRU cell's state carried across steps, cut by a helper from the project's own utils.py;
a margin computed by a no_grad helper that returns a float."""

import torch
from torch import nn
from utils import cut_history, positive_share


def main():
    torch.manual_seed(0)
    cell = nn.GRUCell(3, 5)
    opt = torch.optim.SGD(cell.parameters(), lr=0.1)
    state = torch.zeros(2, 5)
    margin = 0.0
    for _ in range(4):
        state = cell(torch.randn(2, 3), state)
        loss = state.pow(2).mean() + margin
        opt.zero_grad()
        loss.backward()
        opt.step()
        state = cut_history(state)
        margin = positive_share(state)


if __name__ == "__main__":
    main()
