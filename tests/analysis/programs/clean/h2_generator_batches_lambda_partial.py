"""Training wired from small pieces: a generator yielding dict batches, the loss as a
lambda, the optimizer from ``functools.partial``, and a list comprehension of per-batch
losses that are only ever read as Python floats.
"""

import functools

import torch
import torch.nn as nn
import torch.nn.functional as F


def batch_iter(x, y, bs, shuffle_seed):
    g = torch.Generator().manual_seed(shuffle_seed)
    perm = torch.randperm(len(x), generator=g)
    for i in range(0, len(x), bs):
        idx = perm[i : i + bs]
        yield {"inputs": x[idx], "targets": y[idx]}


make_optimizer = functools.partial(torch.optim.SGD, lr=0.05, momentum=0.9, nesterov=True)
loss_fn = lambda logits, targets: F.cross_entropy(logits, targets, label_smoothing=0.1)  # noqa: E731


def step(model, optimizer, batch):
    loss = loss_fn(model(batch["inputs"]), batch["targets"])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def main(epochs=3):
    torch.manual_seed(0)
    x = torch.randn(96, 6)
    y = (x[:, :3].sum(-1) > 0).long() + (x[:, 3] > 1).long()
    model = nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 3))
    optimizer = make_optimizer(model.parameters())
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.5**e)
    for epoch in range(epochs):
        losses = [step(model, optimizer, batch).item() for batch in batch_iter(x, y, 16, epoch)]
        scheduler.step()
        with torch.no_grad():
            acc = (model(x).argmax(-1) == y).float().mean().item()
        print(epoch, round(sum(losses) / len(losses), 4), round(acc, 3))


if __name__ == "__main__":
    main()
