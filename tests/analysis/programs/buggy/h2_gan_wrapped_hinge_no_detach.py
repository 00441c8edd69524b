"""Hinge-loss GAN on 2-D data; both networks wrapped in a DataParallel-like ``.module``
wrapper and kept in an ``nn.ModuleDict``.

The discriminator step uses ``fake`` without ``.detach()``, so its backward frees the
generator's graph that the generator step needs next.

Real report of this mechanism: https://github.com/pytorch/examples/issues/116
A commenter reports that leaving out `.detach()` on the fake images when writing the DCGAN
loop gives this error: the generator step runs back through the fake images after the
discriminator's backward freed them.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Replicated(nn.Module):
    """Stand-in for nn.DataParallel on a single CPU device."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args):
        return self.module(*args)


def make_nets(z_dim=4):
    return nn.ModuleDict(
        {
            "G": Replicated(nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, 2))),
            "D": Replicated(nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))),
        }
    )


def real_batch(n, g):
    angle = torch.rand(n, generator=g) * 6.2832
    return torch.stack([angle.cos(), angle.sin()], 1) * 2 + 0.05 * torch.randn(n, 2, generator=g)


def main(steps=3, bs=32, z_dim=4):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    nets = make_nets(z_dim)
    opt_g = torch.optim.Adam(nets["G"].parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(nets["D"].parameters(), lr=2e-4, betas=(0.5, 0.999))
    for step in range(steps):
        real = real_batch(bs, g)
        fake = nets["G"](torch.randn(bs, z_dim, generator=g))

        d_loss = F.relu(1 - nets["D"](real)).mean() + F.relu(1 + nets["D"](fake)).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()

        g_loss = -nets["D"](fake).mean()
        opt_g.zero_grad()
        g_loss.backward()  # error: [shared-graph-backward]
        opt_g.step()
        print(step, d_loss.item(), g_loss.item())
    torch.save(nets["G"].module.state_dict(), "/dev/null")


if __name__ == "__main__":
    main()
