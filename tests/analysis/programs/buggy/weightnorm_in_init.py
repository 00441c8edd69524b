"""A custom weight-normalised linear layer used in a small MLP classifier.

The normalised weight is computed once in __init__ and reused by forward.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import torch
from torch import nn
from torch.nn import functional as F


class WNLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.v = nn.Parameter(torch.randn(out_features, in_features) * 0.1)
        self.g = nn.Parameter(torch.ones(out_features, 1))
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.weight = self.g * self.v / self.v.norm(dim=1, keepdim=True)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = WNLinear(10, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def get_batches(num=3, bs=8):
    for _ in range(num):
        x = torch.randn(bs, 10)
        yield x, (x[:, 0] > 0).long()


def run():
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    for epoch in range(2):
        total, n = 0.0, 0
        for x, y in get_batches():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()  # error: [pre-loop-graph-backward]
            opt.step()
            total += loss.item() * len(y)
            n += len(y)
        print("epoch", epoch, "loss", total / n)


if __name__ == "__main__":
    run()
