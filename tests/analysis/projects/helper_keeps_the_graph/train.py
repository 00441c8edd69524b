"""Written from https://discuss.pytorch.org/t/runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the-buffers-have-already-been-freed-specify-retain-graph-true-when-calling-backward-the-first-time/6795
(a recurrent state carried between steps through a helper, never detached)."""

import torch
from torch import nn
from utils import smooth


def main():
    torch.manual_seed(0)
    cell = nn.GRUCell(3, 5)
    opt = torch.optim.SGD(cell.parameters(), lr=0.1)
    state = torch.zeros(2, 5)
    for _ in range(3):
        state = smooth(cell(torch.randn(2, 3), state))
        loss = state.pow(2).mean()
        opt.zero_grad()
        loss.backward()  # error: [carried-graph-backward]
        opt.step()


if __name__ == "__main__":
    main()
