"""Diffusion training with self-conditioning done the standard way: half the time a first
x0 estimate is produced under ``torch.no_grad()`` and fed back as the conditioning input, so
only the second forward pass is backwarded. The last estimate is kept on ``self`` detached.
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

    def forward(self, x_t, x0_cond, t):
        return self.out(self.inp(torch.cat([x_t, x0_cond], dim=-1)) + self.t_embed(t))


class SelfCondTrainer:
    def __init__(self, model, T=10):
        self.model, self.T = model, T
        self.alphas_bar = torch.cumprod(1 - torch.linspace(1e-3, 0.2, T), dim=0)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.last_estimate = None

    def training_step(self, x0, g):
        t = torch.randint(0, self.T, (x0.size(0),), generator=g)
        noise = torch.randn(x0.shape, generator=g)
        ab = self.alphas_bar[t].unsqueeze(-1)
        x_t = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
        cond = torch.zeros_like(x0)
        if torch.rand(1, generator=g).item() < 0.5:
            with torch.no_grad():
                cond = self.model(x_t, cond, t)
        x0_hat = self.model(x_t, cond, t)
        loss = F.mse_loss(x0_hat, x0)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.last_estimate = x0_hat.detach()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    trainer = SelfCondTrainer(Denoiser())
    data = torch.randn(64, 4, generator=g) * 0.3 + 1.0
    for step in range(6):
        print(step, trainer.training_step(data[torch.randint(0, 64, (16,), generator=g)], g))
    print(trainer.last_estimate.requires_grad)
