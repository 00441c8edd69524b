"""Orthogonal-recurrent classifier trained under one ``parametrize.cached()`` context.

Report: https://github.com/pytorch/pytorch/issues/71062 -- with
``torch.nn.utils.parametrize.cached()`` enabled, training raised "Trying to backward
through the graph a second time"; albanD: the cached weight is computed in a
differentiable way, so several backwards inside one cached context backward through it
again.

Here the whole training loop sits inside ``with parametrize.cached():``, so the
orthogonal matrix computed from the parameter at the first step is reused by every
later step.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrize


class Skew(nn.Module):
    def forward(self, a):
        upper = a.triu(1)
        return torch.matrix_exp(upper - upper.t())


class OrthoRNN(nn.Module):
    def __init__(self, d_in, hidden, n_classes):
        super().__init__()
        self.inp = nn.Linear(d_in, hidden)
        self.rec = nn.Linear(hidden, hidden, bias=False)
        parametrize.register_parametrization(self.rec, "weight", Skew())
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, seq):
        h = torch.zeros(seq.size(0), self.rec.in_features)
        for t in range(seq.size(1)):
            h = torch.tanh(self.inp(seq[:, t]) + self.rec(h))
        return self.out(h)


def batches(n_batches, batch=8, length=6, d_in=3):
    gen = torch.Generator().manual_seed(1)
    for _ in range(n_batches):
        seq = torch.randn(batch, length, d_in, generator=gen)
        yield seq, (seq[:, 0, 0] > 0).long()


def main():
    torch.manual_seed(0)
    model = OrthoRNN(3, 8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with parametrize.cached():
        for step, (seq, label) in enumerate(batches(4)):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(seq), label)
            loss.backward()  # error: [carried-graph-backward]
            optimizer.step()
            print(f"step {step} loss {loss.item():.4f}")
    w = model.rec.weight
    print("orthogonality gap", (w @ w.t() - torch.eye(8)).abs().max().item())


if __name__ == "__main__":
    main()
