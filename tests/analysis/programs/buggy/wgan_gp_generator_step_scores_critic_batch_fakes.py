"""WGAN-GP on toy 8x8 images (after PyTorch-GAN's implementations/wgan_gp/wgan_gp.py).

Report: https://github.com/eriklindernoren/PyTorch-GAN/issues/6 -- "Trying to backward through
the graph a second time" at `gen_validity.backward(valid)` in the repository's WGAN; its
WGAN-GP script had the same generator update and was fixed in the next commit,
https://github.com/eriklindernoren/PyTorch-GAN/commit/954065fa9c47b7c9fb71bdf0d67f748bea8b91c8
("WGAN-GP: Type in generator update"). The generator step scored `fake_imgs`, generated for
the last critic step and backwarded through by `fake_validity.backward(fake)` (never
detached), instead of the new `gen_imgs`. The gradient penalty, taken on interpolates built
from `.data`, is not involved.
"""

import torch
import torch.nn as nn
from torch import autograd

LATENT_DIM = 16
IMG_SIZE = 8
LAMBDA_GP = 10.0


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(LATENT_DIM, 64), nn.ReLU(), nn.Linear(64, IMG_SIZE**2), nn.Tanh())

    def forward(self, z):
        return self.model(z).view(z.shape[0], 1, IMG_SIZE, IMG_SIZE)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(IMG_SIZE**2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1, 1, 1)
    interpolates = (alpha * real_samples + (1 - alpha) * fake_samples).requires_grad_(True)
    d_interpolates = D(interpolates)
    gradients = autograd.grad(
        outputs=d_interpolates, inputs=interpolates, grad_outputs=torch.ones_like(d_interpolates),
        create_graph=True, retain_graph=True,
    )[0]
    return LAMBDA_GP * ((gradients.view(gradients.size(0), -1).norm(2, dim=1) - 1) ** 2).mean()


def make_dataset(g, n=64):
    rows = torch.rand(n, 1, IMG_SIZE, 1, generator=g)
    return [(rows * torch.linspace(-1, 1, IMG_SIZE))[i : i + 8] for i in range(0, n, 8)]


def train(n_epochs=1, n_critic=2, lr=1e-4):
    torch.manual_seed(0)
    dataloader = make_dataset(torch.Generator().manual_seed(0))
    generator, discriminator = Generator(), Discriminator()
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=lr, betas=(0.5, 0.9))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=lr, betas=(0.5, 0.9))
    for epoch in range(n_epochs):
        data_iter = iter(dataloader)
        for i in range(len(dataloader) // n_critic):
            for _ in range(n_critic):
                real_imgs = next(data_iter)
                valid = torch.full((real_imgs.shape[0], 1), -1.0)
                fake = torch.full((real_imgs.shape[0], 1), 1.0)
                optimizer_D.zero_grad()
                fake_imgs = generator(torch.randn(real_imgs.shape[0], LATENT_DIM))
                real_validity = discriminator(real_imgs)
                real_validity.backward(valid)
                fake_validity = discriminator(fake_imgs)
                fake_validity.backward(fake)
                gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data)
                gradient_penalty.backward()
                d_loss = real_validity - fake_validity
                optimizer_D.step()

            optimizer_G.zero_grad()
            gen_imgs = generator(torch.randn(real_imgs.shape[0], LATENT_DIM))
            gen_validity = discriminator(fake_imgs)
            gen_validity.backward(valid)  # error: [shared-graph-backward]
            optimizer_G.step()
            print(f"[epoch {epoch}] [batch {i}] D {d_loss.mean().item():.4f} G {gen_validity.mean().item():.4f}")
    return generator, discriminator


if __name__ == "__main__":
    train()
