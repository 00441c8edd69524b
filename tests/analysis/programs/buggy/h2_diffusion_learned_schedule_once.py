"""DDPM-style noise prediction with a learnable noise schedule.

The cumulative alphas are computed from the learnable betas once, at module level
under ``__main__``, and reused by every training step.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class EpsNet(nn.Module):
    def __init__(self, dim=2, hidden=32, T=20):
        super().__init__()
        self.t_embed = nn.Embedding(T, hidden)
        self.inp = nn.Linear(dim, hidden)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x_t, t):
        return self.out(self.inp(x_t) + self.t_embed(t))


class LearnedSchedule(nn.Module):
    def __init__(self, T=20):
        super().__init__()
        self.logits = nn.Parameter(torch.linspace(-6, -2, T))

    def alphas_bar(self):
        betas = torch.sigmoid(self.logits)
        return torch.cumprod(1 - betas, dim=0)


def two_moons(n, g):
    theta = torch.rand(n, generator=g) * 3.1416
    upper = torch.rand(n, generator=g) < 0.5
    x = torch.stack([torch.cos(theta), torch.sin(theta)], dim=1)
    x[~upper] = x[~upper] * torch.tensor([1.0, -1.0]) + torch.tensor([1.0, 0.5])
    return x + 0.05 * torch.randn(n, 2, generator=g)


def q_sample(x0, t, alphas_bar, noise):
    ab = alphas_bar[t].unsqueeze(-1)
    return ab.sqrt() * x0 + (1 - ab).sqrt() * noise


if __name__ == "__main__":
    torch.manual_seed(0)
    T = 20
    g = torch.Generator().manual_seed(0)
    data = two_moons(256, g)
    net, schedule = EpsNet(T=T), LearnedSchedule(T)
    optimizer = torch.optim.Adam([*net.parameters(), *schedule.parameters()], lr=2e-3)
    alphas_bar = schedule.alphas_bar()
    losses = []
    for step in range(6):
        x0 = data[torch.randint(0, len(data), (32,), generator=g)]
        t = torch.randint(0, T, (32,), generator=g)
        noise = torch.randn_like(x0)
        x_t = q_sample(x0, t, alphas_bar, noise)
        loss = F.mse_loss(net(x_t, t), noise)
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        losses.append(loss.item())
    print("losses", [round(v, 4) for v in losses])
