"""Autoencoder pre-training with an online linear probe: the probe's loss is backwarded
with ``backward(inputs=probe_params)``, which runs only the part of the graph that
reaches the probe's parameters, so the encoder graph behind ``feats`` is not freed and
the reconstruction loss backwards through it afterwards (issue 13: ``backward(inputs=...)``
frees only what it reaches).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def main(steps=4):
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    labels = (x[:, 0] + x[:, 1] > 0).long()
    encoder = nn.Sequential(nn.Linear(10, 16), nn.ELU(), nn.Linear(16, 4))
    decoder = nn.Sequential(nn.Linear(4, 16), nn.ELU(), nn.Linear(16, 10))
    probe = nn.Linear(4, 2)
    probe_params = list(probe.parameters())
    ae_optimizer = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-2)
    probe_optimizer = torch.optim.SGD(probe_params, lr=0.1)
    history = []
    for step in range(steps):
        feats = encoder(x)
        probe_loss = F.cross_entropy(probe(feats), labels)
        probe_optimizer.zero_grad()
        probe_loss.backward(inputs=probe_params)
        probe_optimizer.step()
        recon = F.mse_loss(decoder(feats), x)
        ae_optimizer.zero_grad()
        recon.backward()
        ae_optimizer.step()
        history.append(recon.item())
        print(f"step {step} recon {recon.item():.4f} probe {probe_loss.item():.4f}")
    assert history[-1] < history[0]
    assert all(p.grad is None or p.grad.abs().sum() > 0 for p in encoder.parameters())


if __name__ == "__main__":
    main()
