"""VAE with a learned Gaussian prior, trained until the ELBO stops improving.

The prior's parameters are produced by a small network from a fixed context
vector; the script evaluates it once before the while loop.

Real report of this mechanism: https://github.com/hiyoung123/SoftMaskedBert/issues/16
The model computes the [MASK] embedding from trainable layers once, in __init__, and uses it
in every forward; the fix given there detaches it.
"""

import torch
from torch import nn
from torch.nn import functional as F


class VAE(nn.Module):
    def __init__(self, d_x=10, d_z=2):
        super().__init__()
        self.enc = nn.Linear(d_x, 2 * d_z)
        self.dec = nn.Linear(d_z, d_x)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def gaussian_kl(mu_q, logvar_q, mu_p, logvar_p):
    return (
        0.5
        * (logvar_p - logvar_q + (logvar_q.exp() + (mu_q - mu_p) ** 2) / logvar_p.exp() - 1).sum(-1).mean()
    )


torch.manual_seed(0)
vae = VAE()
prior_net = nn.Linear(3, 4)
context = torch.ones(1, 3)
optimizer = torch.optim.Adam([*vae.parameters(), *prior_net.parameters()], lr=1e-3)
data = torch.randn(32, 10)

prior_mu, prior_logvar = prior_net(context).chunk(2, dim=-1)

best, patience, bad_epochs, epoch = float("inf"), 2, 0, 0
while bad_epochs < patience and epoch < 3:
    epoch_loss = 0.0
    for batch in data.split(16):
        recon, mu, logvar = vae(batch)
        loss = F.mse_loss(recon, batch, reduction="sum") / len(batch) + gaussian_kl(
            mu, logvar, prior_mu, prior_logvar
        )
        optimizer.zero_grad()
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        epoch_loss += loss.item()
    if epoch_loss < best - 1e-3:
        best, bad_epochs = epoch_loss, 0
    else:
        bad_epochs += 1
    epoch += 1
    print(f"epoch {epoch} loss {epoch_loss:.3f}")
