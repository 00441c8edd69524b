"""PCGrad-style gradient surgery (Yu et al., 2020): per-task gradients from one forward pass.

Each task loss is backpropagated in turn with retain_graph=(i < n - 1), so only
the last backward frees the shared graph.
"""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class SharedBottom(nn.Module):
    def __init__(self, n_tasks=3):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
        self.towers = nn.ModuleList(nn.Linear(16, 1) for _ in range(n_tasks))

    def forward(self, x):
        h = self.bottom(x)
        return [tower(h).squeeze(-1) for tower in self.towers]


def flat_grad(params):
    return torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in params])


def pcgrad_step(model, losses, optimizer):
    params = [p for p in model.parameters() if p.requires_grad]
    grads = []
    n = len(losses)
    for i, loss in enumerate(losses):
        optimizer.zero_grad()
        loss.backward(retain_graph=(i < n - 1))
        grads.append(flat_grad(params))
    projected = [g.clone() for g in grads]
    for i, g_i in enumerate(projected):
        others = list(range(n))
        random.shuffle(others)
        for j in others:
            dot = torch.dot(g_i, grads[j])
            if j != i and dot < 0:
                g_i -= dot / grads[j].norm().pow(2) * grads[j]
    merged = torch.stack(projected).sum(0)
    offset = 0
    for p in params:
        p.grad = merged[offset : offset + p.numel()].view_as(p).clone()
        offset += p.numel()
    optimizer.step()


def main():
    random.seed(0)
    torch.manual_seed(0)
    model = SharedBottom()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        x = torch.randn(12, 6)
        targets = [x.sum(1), x[:, 0] - x[:, 1], torch.randn(12)]
        losses = [F.mse_loss(pred, t) for pred, t in zip(model(x), targets)]
        pcgrad_step(model, losses, optimizer)
        print(step, [round(l.item(), 3) for l in losses])


if __name__ == "__main__":
    main()
