"""GAN on 1-D data where the discriminator step backpropagates through the non-detached fake batch
with retain_graph=True, so the generator step can reuse the same graph with the last backward.
"""

import torch
import torch.nn as nn


def real_data(n):
    return torch.randn(n, 1) * 0.3 + 1.5


def main(iterations=3, batch=16):
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
    D = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    opt_g = torch.optim.SGD(G.parameters(), lr=1e-2)
    opt_d = torch.optim.SGD(D.parameters(), lr=1e-2)
    criterion = nn.BCELoss()
    ones, zeros = torch.ones(batch, 1), torch.zeros(batch, 1)

    for it in range(iterations):
        fake = G(torch.randn(batch, 3))
        d_fake = D(fake)

        opt_d.zero_grad()
        d_loss = criterion(D(real_data(batch)), ones) + criterion(d_fake, zeros)
        d_loss.backward(retain_graph=True)

        opt_g.zero_grad()
        g_loss = criterion(d_fake, ones)
        g_loss.backward()

        opt_d.step()
        opt_g.step()
        print(f"it {it}: d {d_loss.item():.4f} g {g_loss.item():.4f} "
              f"mean fake {fake.mean().item():.3f}")


if __name__ == "__main__":
    main()
