"""Online next-value prediction on a stream with a GRUCell; the learner keeps its hidden state on
self across update() calls and detaches it after every step (truncated BPTT of length 1).
"""

import torch
import torch.nn as nn


class Stream:
    def __init__(self, n=8):
        self.values = torch.sin(torch.arange(n, dtype=torch.float32) * 0.4).unsqueeze(1)
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.values):
            raise StopIteration
        v = self.values[self.i : self.i + 1]
        self.i += 1
        return v


class OnlineLearner:
    def __init__(self, hidden=8):
        self.cell = nn.GRUCell(1, hidden)
        self.head = nn.Linear(hidden, 1)
        self.opt = torch.optim.Adam([*self.cell.parameters(), *self.head.parameters()], lr=1e-2)
        self.h = torch.zeros(1, hidden)
        self.last_input = None

    def update(self, value):
        loss_value = None
        if self.last_input is not None:
            h = self.cell(self.last_input, self.h)
            loss = nn.functional.mse_loss(self.head(h), value)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.h = h.detach()
            loss_value = loss.item()
        self.last_input = value
        return loss_value


def main():
    torch.manual_seed(0)
    learner = OnlineLearner()
    stream = iter(Stream())
    losses = []
    while True:
        try:
            value = next(stream)
        except StopIteration:
            break
        loss = learner.update(value)
        if loss is not None:
            losses.append(loss)
    print("online losses:", [round(l, 4) for l in losses])


if __name__ == "__main__":
    main()
