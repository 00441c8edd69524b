"""Conditional image-to-image GAN (pix2pix layout) with a WGAN-GP critic updated several
times per generator update, on 8x8 toy images.

Report: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439 -- a user
adding WGAN-GP to pix2pix, updating D several times before G, got "Trying to backward
through the graph a second time" although backward_D calls backward only once: the
fake pair is detached for the critic's score, but the gradient penalty interpolates
between the real pair and the *undetached* fake pair, so the critic's backward goes
into the generator's graph. The second critic update reaches the part the first freed.
"""

import torch
import torch.nn as nn


def penalty(net_d, real, fake, weight=10.0):
    alpha = torch.rand(real.shape[0], 1, 1, 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    (grad,) = torch.autograd.grad(net_d(mixed).sum(), mixed, create_graph=True)
    return weight * ((grad.flatten(1).norm(dim=1) - 1) ** 2).mean()


class Pix2PixWGAN:
    def __init__(self, critic_iters=3):
        self.net_g = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1), nn.Tanh())
        self.net_d = nn.Sequential(nn.Conv2d(2, 8, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 16, 1))
        self.opt_g = torch.optim.Adam(self.net_g.parameters(), lr=2e-4, betas=(0.5, 0.9))
        self.opt_d = torch.optim.Adam(self.net_d.parameters(), lr=2e-4, betas=(0.5, 0.9))
        self.critic_iters = critic_iters

    def set_input(self, real_a, real_b):
        self.real_a, self.real_b = real_a, real_b

    def forward(self):
        self.fake_b = self.net_g(self.real_a)

    def backward_d(self):
        fake_ab = torch.cat((self.real_a, self.fake_b), 1)
        real_ab = torch.cat((self.real_a, self.real_b), 1)
        loss_fake = self.net_d(fake_ab.detach()).mean()
        loss_real = -self.net_d(real_ab).mean()
        self.loss_d = loss_fake + loss_real + penalty(self.net_d, real_ab, fake_ab)
        self.loss_d.backward()  # error: [pre-loop-graph-backward]

    def backward_g(self):
        fake_ab = torch.cat((self.real_a, self.fake_b), 1)
        self.loss_g = -self.net_d(fake_ab).mean() + 100.0 * (self.fake_b - self.real_b).abs().mean()
        self.loss_g.backward()

    def optimize_parameters(self):
        self.forward()
        for _ in range(self.critic_iters):
            self.opt_d.zero_grad()
            self.backward_d()
            self.opt_d.step()
        self.opt_g.zero_grad()
        self.backward_g()
        self.opt_g.step()


def main(steps=4):
    torch.manual_seed(0)
    model = Pix2PixWGAN()
    for step in range(steps):
        edges = torch.rand(6, 1, 8, 8)
        model.set_input(edges * 2 - 1, edges.flip(-1) * 2 - 1)
        model.optimize_parameters()
        print(f"step {step}: D {model.loss_d.item():.3f} G {model.loss_g.item():.3f}")


if __name__ == "__main__":
    main()
