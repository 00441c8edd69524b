"""DCGAN-style training of a tiny MLP generator and discriminator, with the
discriminator's fake term computed on ``fake.detach()`` as in the DCGAN example that
https://github.com/pytorch/examples/issues/116 discusses, so the generator step still
has the generator's graph.
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
        err_d_fake = criterion(net_d(fake.detach()), zeros)
        err_d_fake.backward()
        opt_d.step()

        # (2) generator: maximise log D(G(z))
        net_g.zero_grad()
        err_g = criterion(net_d(fake), ones)
        err_g.backward()
        assert all(p.grad.abs().sum() > 0 for p in net_g.parameters())
        opt_g.step()
        print(f"iter {it} loss_d {(err_d_real + err_d_fake).item():.4f} loss_g {err_g.item():.4f}")


if __name__ == "__main__":
    main()
