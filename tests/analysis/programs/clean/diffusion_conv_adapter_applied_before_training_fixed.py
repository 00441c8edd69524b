"""Toy 1-D denoising diffusion model whose trainable ``nn.Conv1d`` channel adapter is
applied to each batch inside the training loop, the fix the reporter of
https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109 found (the
conversion had been done once, outside the loop).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Denoiser(nn.Module):
    def __init__(self, channels=4):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(channels + 1, 16, 3, padding=1), nn.SiLU(), nn.Conv1d(16, channels, 3, padding=1))

    def forward(self, x, t):
        t_map = t[:, None, None].expand(-1, 1, x.size(-1)).float() / 50
        return self.net(torch.cat([x, t_map], dim=1))


def main(steps=4, timesteps=50):
    torch.manual_seed(0)
    raw = torch.sin(torch.linspace(0, 2 * math.pi, 32))[None, None, :].repeat(16, 2, 1)
    raw = raw + 0.05 * torch.randn_like(raw)
    betas = torch.linspace(1e-4, 0.02, timesteps)
    alphas_bar = torch.cumprod(1 - betas, dim=0)
    adapter = nn.Conv1d(2, 4, 1)
    denoiser = Denoiser()
    optimizer = torch.optim.Adam([*adapter.parameters(), *denoiser.parameters()], lr=1e-3)
    for step in range(steps):
        x0 = adapter(raw[torch.randint(0, 16, (8,))])
        t = torch.randint(0, timesteps, (8,))
        noise = torch.randn_like(x0)
        a = alphas_bar[t][:, None, None]
        xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
        loss = F.mse_loss(denoiser(xt, t), noise)
        optimizer.zero_grad()
        loss.backward()
        assert adapter.weight.grad.abs().sum() > 0
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
