"""WGAN-GP (Gulrajani et al.) on 2-D toy data, n_critic critic steps per generator step."""

import torch
import torch.autograd as autograd
import torch.nn as nn


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1)
    interpolates = (alpha * real_samples + (1 - alpha) * fake_samples).requires_grad_(True)
    d_interpolates = D(interpolates)
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones_like(d_interpolates),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def main(n_iters=2, n_critic=2, lambda_gp=10.0, batch=16, latent=3):
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, 2))
    discriminator = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.0, 0.9))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=1e-4, betas=(0.0, 0.9))

    for it in range(n_iters):
        for _ in range(n_critic):
            real = torch.randn(batch, 2) + torch.tensor([2.0, -1.0])
            z = torch.randn(batch, latent)
            fake = generator(z)
            optimizer_D.zero_grad()
            real_validity = discriminator(real)
            fake_validity = discriminator(fake.detach())
            gp = compute_gradient_penalty(discriminator, real, fake.detach())
            d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + lambda_gp * gp
            d_loss.backward()
            optimizer_D.step()

        optimizer_G.zero_grad()
        fake = generator(torch.randn(batch, latent))
        g_loss = -torch.mean(discriminator(fake))
        g_loss.backward()
        optimizer_G.step()
        print(f"[iter {it}] D loss: {d_loss.item():.4f} G loss: {g_loss.item():.4f} gp {gp.item():.4f}")


if __name__ == "__main__":
    main()
