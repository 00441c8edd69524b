"""DDPM noise prediction with a fixed (non-learnable) noise schedule computed once before the
loop, and an ancestral sampler decorated with ``@torch.inference_mode()``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class EpsModel(nn.Module):
    def __init__(self, dim=2, hidden=32, T=20):
        super().__init__()
        self.t_embed = nn.Embedding(T, hidden)
        self.inp = nn.Linear(dim, hidden)
        self.body = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.body(self.inp(x) + self.t_embed(t))


class Schedule:
    def __init__(self, T=20):
        self.T = T
        self.betas = torch.linspace(1e-4, 0.2, T)
        self.alphas = 1 - self.betas
        self.alphas_bar = torch.cumprod(self.alphas, dim=0)

    def q_sample(self, x0, t, noise):
        ab = self.alphas_bar[t].unsqueeze(-1)
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise


@torch.inference_mode()
def sample(model, sched, n, g):
    x = torch.randn(n, 2, generator=g)
    for t in reversed(range(sched.T)):
        tt = torch.full((n,), t, dtype=torch.long)
        eps = model(x, tt)
        mean = (x - sched.betas[t] / (1 - sched.alphas_bar[t]).sqrt() * eps) / sched.alphas[t].sqrt()
        x = mean + (sched.betas[t].sqrt() * torch.randn(n, 2, generator=g) if t > 0 else 0)
    return x


def main(steps=8):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = torch.randn(256, 2, generator=g) * 0.3 + torch.tensor([1.0, -1.0])
    sched, model = Schedule(), EpsModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(steps):
        x0 = data[torch.randint(0, 256, (32,), generator=g)]
        t = torch.randint(0, sched.T, (32,), generator=g)
        noise = torch.randn(x0.shape, generator=g)
        loss = F.mse_loss(model(sched.q_sample(x0, t, noise), t), noise)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    samples = sample(model, sched, 16, g)
    print(round(loss.item(), 4), samples.mean(0))


if __name__ == "__main__":
    main()
