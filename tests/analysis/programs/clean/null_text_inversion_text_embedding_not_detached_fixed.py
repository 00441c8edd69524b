"""Null-text inversion: optimise the unconditional embedding, step by step along a
DDIM-like trajectory, so that classifier-free guidance reproduces the trajectory.

Twin of buggy/null_text_inversion_text_embedding_not_detached.py, fixed as the
maintainer advises: the prompt's embedding is detached before the optimisation starts
(only the unconditional embedding is optimised), so each inner step's loss has a graph
of its own.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TextEncoder(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, tokens):
        return self.proj(self.embed(tokens)).mean(0)


class Denoiser(nn.Module):
    def __init__(self, dim=16, latent=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent + dim + 1, 32), nn.SiLU(), nn.Linear(32, latent))

    def forward(self, x, t, context):
        return self.net(torch.cat([x, context, t.view(1)]))


def main(timesteps=4, inner_steps=3, guidance=7.5):
    torch.manual_seed(0)
    encoder, unet = TextEncoder(), Denoiser()
    for p in unet.parameters():
        p.requires_grad_(False)
    text_embedding = encoder(torch.tensor([3, 7, 11])).detach()
    trajectory = [torch.randn(8) for _ in range(timesteps + 1)]
    uncond_embeddings = []
    for i in range(timesteps):
        uncond = nn.Parameter(torch.zeros(16))
        optimizer = torch.optim.Adam([uncond], lr=1e-2)
        t = torch.tensor(1.0 - i / timesteps)
        latent, target = trajectory[i], trajectory[i + 1]
        for _ in range(inner_steps):
            eps_uncond = unet(latent, t, uncond)
            eps_text = unet(latent, t, text_embedding)
            eps = eps_uncond + guidance * (eps_text - eps_uncond)
            loss = F.mse_loss(latent - 0.1 * eps, target)
            optimizer.zero_grad()
            loss.backward()
            assert uncond.grad is not None
            optimizer.step()
        uncond_embeddings.append(uncond.detach())
        print(f"timestep {i}: loss {loss.item():.4f}")
    return uncond_embeddings


if __name__ == "__main__":
    main()
