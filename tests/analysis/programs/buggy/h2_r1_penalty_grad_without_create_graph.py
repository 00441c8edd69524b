"""StyleGAN-style R1 regularisation for the discriminator, computed lazily.

``autograd.grad`` is called on the real scores without ``create_graph`` (nor
``retain_graph``); the discriminator loss then backwards through those same scores.

Real report of this mechanism: https://github.com/sdv-dev/CTGAN/issues/37
The maintainers explain that the gradient-penalty backward keeps the graph because
loss_d.backward() runs through the same discriminator graph afterwards.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Critic(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 32), nn.LeakyReLU(0.2), nn.Linear(32, 32), nn.LeakyReLU(0.2))
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        return self.out(self.net(x)).squeeze(-1)


def r1_penalty(real_scores, real):
    (grad,) = torch.autograd.grad(real_scores.sum(), real)
    return grad.pow(2).sum(dim=1).mean()


def main(gamma=10.0, r1_every=2):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    critic = Critic()
    generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    opt_d = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.0, 0.99))
    data = torch.randn(64, 8, generator=g) * 0.5 + 1.0
    for step in range(4):
        real = data[torch.randint(0, 64, (16,), generator=g)].requires_grad_(True)
        with torch.no_grad():
            fake = generator(torch.randn(16, 4, generator=g))
        real_scores = critic(real)
        d_loss = F.softplus(-real_scores).mean() + F.softplus(critic(fake)).mean()
        if step % r1_every == 0:
            d_loss = d_loss + 0.5 * gamma * r1_penalty(real_scores, real)
        opt_d.zero_grad()
        d_loss.backward()  # error: [shared-graph-backward]
        opt_d.step()
        print(step, round(d_loss.item(), 4))


if __name__ == "__main__":
    main()
