"""GAN on 1-D Gaussian data where the generator is updated first and the discriminator
second, both from one generated batch.

Twin of buggy/gan_generator_updated_first_then_discriminator_on_same_fake.py, fixed as
the accepted answer says: the discriminator scores the fake batch detached, so its loss
stays within the discriminator's own graph and no retain_graph is needed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def main(steps=5, batch=64, z_dim=4):
    torch.manual_seed(0)
    net_g = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, 1))
    net_d = nn.Sequential(nn.Linear(1, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    optim_g = torch.optim.Adam(net_g.parameters(), lr=1e-3)
    optim_d = torch.optim.Adam(net_d.parameters(), lr=1e-3)
    ones, zeros = torch.ones(batch, 1), torch.zeros(batch, 1)
    for step in range(steps):
        real = 2.0 + 0.5 * torch.randn(batch, 1)
        fake = net_g(torch.randn(batch, z_dim))

        loss_g = F.binary_cross_entropy_with_logits(net_d(fake), ones)
        optim_g.zero_grad()
        loss_g.backward()
        optim_g.step()

        loss_d = F.binary_cross_entropy_with_logits(net_d(real), ones)
        loss_d = loss_d + F.binary_cross_entropy_with_logits(net_d(fake.detach()), zeros)
        optim_d.zero_grad()
        loss_d.backward()
        assert all(p.grad is not None for p in net_d.parameters())
        optim_d.step()
        print(f"step {step}: loss_g {loss_g.item():.3f} loss_d {loss_d.item():.3f}")


if __name__ == "__main__":
    main()
