"""Multi-task training where each batch belongs to one task: a DataParallel-like wrapper
(``.module``) around a model with an ``nn.ModuleDict`` of heads; the two backwards sit in
exclusive ``if``/``else`` branches, and checkpoints are saved from ``model.module``.
"""

import io

import torch
import torch.nn as nn
import torch.nn.functional as F


class Wrapper(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.heads = nn.ModuleDict({"sentiment": nn.Linear(32, 2), "rating": nn.Linear(32, 1)})

    def forward(self, x, task):
        return self.heads[task](self.shared(x))


def task_batches(n=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    for i in range(n):
        x = torch.randn(8, 10, generator=g)
        if i % 2 == 0:
            yield "sentiment", x, (x[:, 0] > 0).long()
        else:
            yield "rating", x, x[:, :2].sum(-1, keepdim=True)


def main():
    torch.manual_seed(0)
    model = Wrapper(MultiTask())
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(2):
        for task, x, y in task_batches(seed=epoch):
            out = model(x, task)
            optimizer.zero_grad()
            if task == "sentiment":
                loss = F.cross_entropy(out, y)
                loss.backward()
            else:
                loss = F.mse_loss(out, y)
                loss.backward()
            optimizer.step()
        buffer = io.BytesIO()
        torch.save(model.module.state_dict(), buffer)
        print(epoch, task, round(loss.item(), 4), buffer.tell(), "bytes")


if __name__ == "__main__":
    main()
