"""Diffusion training with self-conditioning (Chen et al., "Analog Bits").

The trainer keeps the previous step's x0 estimate on ``self`` and feeds it back in as
the self-conditioning input, as a plain input: it is stored detached, as self-conditioning does.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Denoiser(nn.Module):
    def __init__(self, dim=4, hidden=32, T=10):
        super().__init__()
        self.t_embed = nn.Embedding(T, hidden)
        self.inp = nn.Linear(2 * dim, hidden)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x_t, x0_prev, t):
        return self.out(self.inp(torch.cat([x_t, x0_prev], dim=-1)) + self.t_embed(t))


class DiffusionTrainer:
    def __init__(self, model, T=10, batch=16, dim=4):
        self.model = model
        self.T = T
        betas = torch.linspace(1e-3, 0.2, T)
        self.alphas_bar = torch.cumprod(1 - betas, dim=0)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.x0_prev = torch.zeros(batch, dim)

    def training_step(self, x0, g):
        t = torch.randint(0, self.T, (x0.size(0),), generator=g)
        noise = torch.randn(x0.shape, generator=g)
        ab = self.alphas_bar[t].unsqueeze(-1)
        x_t = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        x0_hat = self.model(x_t, self.x0_prev, t)
        loss = F.mse_loss(x0_hat, x0)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.x0_prev = x0_hat.detach()  # an input to the next step, not part of its graph
        return loss.item()


def data_batches(n, batch, dim, g):
    centers = torch.tensor([[1.0, 1.0, -1.0, 0.0], [-1.0, 0.5, 1.0, 0.0]])
    for _ in range(n):
        which = torch.randint(0, 2, (batch,), generator=g)
        yield centers[which] + 0.1 * torch.randn(batch, dim, generator=g)


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    trainer = DiffusionTrainer(Denoiser())
    for step, x0 in enumerate(data_batches(4, 16, 4, g)):
        print(step, trainer.training_step(x0, g))
