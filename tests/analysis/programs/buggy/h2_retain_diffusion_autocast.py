"""Noise-prediction training under ``torch.autocast("cpu")``; the backward passes
``retain_graph=True`` every step although nothing is backwarded twice.

Real report of this mechanism: https://github.com/EagleW/Writing-editing-Network/issues/3
A backward in the training loop passes retain_graph=True although every iteration builds its
graph again; removing it made no difference to training.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TimeMLP(nn.Module):
    def __init__(self, dim=3, hidden=32, T=16):
        super().__init__()
        self.T = T
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.head = nn.Linear(hidden, dim)

    def forward(self, x, t):
        return self.head(self.net(torch.cat([x, (t.float() / self.T).unsqueeze(-1)], dim=-1)))


def cosine_alphas_bar(T, s=0.008):
    steps = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((steps + s) / (1 + s) * torch.pi / 2) ** 2
    return (f[1:] / f[0]).clamp(1e-5, 1).float()


def batches(data, bs, g):
    while True:
        yield data[torch.randint(0, len(data), (bs,), generator=g)]


def train(steps=6, T=16):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = torch.randn(200, 3, generator=g) @ torch.tensor([[1.0, 0.5, 0.0], [0.0, 1.0, 0.2], [0.0, 0.0, 0.3]])
    model = TimeMLP(T=T)
    alphas_bar = cosine_alphas_bar(T)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    stream = batches(data, 32, g)
    for step in range(steps):
        x0 = next(stream)
        t = torch.randint(0, T, (x0.size(0),), generator=g)
        noise = torch.randn(x0.shape, generator=g)
        ab = alphas_bar[t].unsqueeze(-1)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(ab.sqrt() * x0 + (1 - ab).sqrt() * noise, t)
        loss = F.mse_loss(pred.float(), noise)
        optimizer.zero_grad(set_to_none=True)
        loss.backward(retain_graph=True)  # error: [retain-graph-in-loop]
        optimizer.step()
        print(step, round(loss.item(), 4))


if __name__ == "__main__":
    train()
