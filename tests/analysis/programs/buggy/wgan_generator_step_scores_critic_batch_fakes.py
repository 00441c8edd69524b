"""WGAN with weight clipping on toy 8x8 images (after PyTorch-GAN's implementations/wgan/wgan.py).

Report: https://github.com/eriklindernoren/PyTorch-GAN/issues/6 -- running wgan.py raises
"Trying to backward through the graph a second time" at `gen_validity.backward(valid)`.
The generator update scored `fake_imgs`, the batch generated for the last critic step,
instead of the freshly generated `gen_imgs`; the critic step's `fake_validity.backward(fake)`
had already backwarded through the generator graph of `fake_imgs` (never detached) and freed
it. The maintainer fixed the typo: `gen_validity = discriminator(gen_imgs)`.
"""

import torch
import torch.nn as nn

LATENT_DIM = 16
IMG_SIZE = 8


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(
            nn.Linear(LATENT_DIM, 64), nn.LeakyReLU(0.2), nn.Linear(64, IMG_SIZE**2), nn.Tanh()
        )

    def forward(self, noise):
        return self.model(noise).view(noise.shape[0], 1, IMG_SIZE, IMG_SIZE)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(IMG_SIZE**2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


def make_dataset(g, n=64):
    base = torch.linspace(-1, 1, IMG_SIZE)
    imgs = (base.view(1, 1, 1, -1) * torch.rand(n, 1, IMG_SIZE, 1, generator=g)).tanh()
    return [imgs[i : i + 8] for i in range(0, n, 8)]


def train(n_epochs=1, n_critic=2, clip_value=0.01, lr=5e-5):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    dataloader = make_dataset(g)
    generator, discriminator = Generator(), Discriminator()
    optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=lr)
    optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=lr)
    for epoch in range(n_epochs):
        data_iter = iter(dataloader)
        for i in range(len(dataloader) // n_critic):
            for _ in range(n_critic):
                real_imgs = next(data_iter)
                valid = torch.full((real_imgs.shape[0], 1), -1.0)
                fake = torch.full((real_imgs.shape[0], 1), 1.0)
                optimizer_D.zero_grad()
                z = torch.randn(real_imgs.shape[0], LATENT_DIM)
                fake_imgs = generator(z)
                real_validity = discriminator(real_imgs)
                real_validity.backward(valid)
                fake_validity = discriminator(fake_imgs)
                fake_validity.backward(fake)
                d_loss = real_validity - fake_validity
                optimizer_D.step()
                for p in discriminator.parameters():
                    p.data.clamp_(-clip_value, clip_value)

            optimizer_G.zero_grad()
            z = torch.randn(real_imgs.shape[0], LATENT_DIM)
            gen_imgs = generator(z)
            gen_validity = discriminator(fake_imgs)
            gen_validity.backward(valid)  # error: [shared-graph-backward]
            optimizer_G.step()
            print(f"[epoch {epoch}] [batch {i}] D {d_loss.mean().item():.4f} G {gen_validity.mean().item():.4f}")
    return generator, discriminator


if __name__ == "__main__":
    train()
