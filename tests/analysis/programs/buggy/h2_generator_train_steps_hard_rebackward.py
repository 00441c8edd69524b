"""Training steps written as a generator; the consumer "upweights" hard batches.

``train_steps`` already backwards each loss before yielding it. For batches whose
loss is above a threshold the consumer calls ``backward()`` once more, hoping to
double their gradient -- but the graph was freed by the first backward.

Real report of this mechanism: https://github.com/TingsongYu/PyTorch-Tutorial-2nd/issues/33
Calling backward() a second time on the same loss raises this error; the maintainer answers
that a second backward through one graph needs retain_graph=True on the first.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def batch_stream(x, y, bs, epochs, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), bs):
            idx = perm[i : i + bs]
            yield x[idx], y[idx]


def train_steps(model, optimizer, stream):
    for step, (xb, yb) in enumerate(stream):
        optimizer.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(xb).squeeze(-1), yb)
        loss.backward()
        yield step, loss
        optimizer.step()


def make_data(n=64, d=5):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, d, generator=g)
    w = torch.randn(d, generator=g)
    y = ((x @ w) > 0).float()
    return x, y


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = make_data()
    model = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Linear(8, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    hard_threshold = 0.0
    hard_steps = []
    losses = []
    for step, loss in train_steps(model, optimizer, batch_stream(x, y, bs=16, epochs=2)):
        losses.append(loss.item())
        if loss.item() > hard_threshold:
            loss.backward()  # error: [double-backward]
            hard_steps.append(step)
    print("mean loss", sum(losses) / len(losses), "hard steps", hard_steps)
