"""WGAN (weight clipping) on 1-D data. The critic runs n_critic steps per generator step,
each on freshly generated (detached) samples; retain_graph=True was added to the
critic backward anyway.

Real report of this mechanism: https://github.com/GBLin5566/toward-controlled-generation-of-text-pytorch/issues/9
After setting retain_graph=True on the backward calls, memory blew up; the reporter notes
only the backward before the last needs it.
"""

import torch
import torch.nn as nn


def real_batch(n):
    return torch.randn(n, 1) * 0.5 + 2.0


def main(iterations=2, n_critic=3, clip_value=0.01, batch=16):
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    D = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-5)
    opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-5)

    for it in range(iterations):
        for _ in range(n_critic):
            z = torch.randn(batch, 2)
            fake = G(z).detach()
            loss_d = -(D(real_batch(batch)).mean() - D(fake).mean())
            opt_d.zero_grad()
            loss_d.backward(retain_graph=True)  # error: [retain-graph-in-loop]
            opt_d.step()
            for p in D.parameters():
                p.data.clamp_(-clip_value, clip_value)

        z = torch.randn(batch, 2)
        loss_g = -D(G(z)).mean()
        opt_g.zero_grad()
        loss_g.backward()
        opt_g.step()
        print(f"it {it}: loss_d {loss_d.item():.4f} loss_g {loss_g.item():.4f}")


if __name__ == "__main__":
    main()
