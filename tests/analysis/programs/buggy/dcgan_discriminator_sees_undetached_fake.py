"""DCGAN-style training of a tiny MLP generator and discriminator on 2-D points.

Report: https://github.com/pytorch/examples/issues/116 -- a user who left out
``fake.detach()`` in the discriminator step of the DCGAN example got "Trying to
backward through the graph second time"; the discriminator loss's backward frees the
generator's graph, which the generator step then needs.

Here the discriminator's fake term is computed on ``fake`` itself, and the generator
step reuses the same ``fake``.
"""

import torch
import torch.nn as nn


def real_batch(n):
    angle = torch.rand(n) * 6.2832
    return torch.stack([angle.cos(), angle.sin()], dim=1) + 0.05 * torch.randn(n, 2)


def main(iters=3, batch=32, nz=4):
    torch.manual_seed(0)
    net_g = nn.Sequential(nn.Linear(nz, 32), nn.ReLU(), nn.Linear(32, 2))
    net_d = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    criterion = nn.BCEWithLogitsLoss()
    opt_d = torch.optim.Adam(net_d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(net_g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    ones, zeros = torch.ones(batch, 1), torch.zeros(batch, 1)
    for it in range(iters):
        # (1) discriminator: maximise log D(x) + log(1 - D(G(z)))
        net_d.zero_grad()
        err_d_real = criterion(net_d(real_batch(batch)), ones)
        err_d_real.backward()
        fake = net_g(torch.randn(batch, nz))
        err_d_fake = criterion(net_d(fake), zeros)
        err_d_fake.backward()
        opt_d.step()

        # (2) generator: maximise log D(G(z))
        net_g.zero_grad()
        err_g = criterion(net_d(fake), ones)
        err_g.backward()  # error: [shared-graph-backward]
        opt_g.step()
        print(f"iter {it} loss_d {(err_d_real + err_d_fake).item():.4f} loss_g {err_g.item():.4f}")


if __name__ == "__main__":
    main()
