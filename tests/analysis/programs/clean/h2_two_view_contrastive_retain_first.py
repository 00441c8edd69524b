"""Two-view contrastive learning with a symmetric InfoNCE loss: both directional terms are
computed from the same similarity matrix (and so through both encoder passes). To log them
separately they are backwarded one by one, the first with ``retain_graph=True`` because the
second still needs the shared graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, d_in=16, dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


def augment(x, g):
    mask = (torch.rand(x.shape, generator=g) > 0.1).float()
    return x * mask + 0.05 * torch.randn(x.shape, generator=g)


def main(epochs=2, bs=16, temperature=0.2):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = torch.randn(64, 16, generator=g)
    encoder = Encoder()
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05, momentum=0.9)
    labels = torch.arange(bs)
    for epoch in range(epochs):
        history = {"a_to_b": [], "b_to_a": []}
        for i in range(0, 64, bs):
            x = data[i : i + bs]
            z1, z2 = encoder(augment(x, g)), encoder(augment(x, g))
            logits = z1 @ z2.t() / temperature
            loss_ab = 0.5 * F.cross_entropy(logits, labels)
            loss_ba = 0.5 * F.cross_entropy(logits.t(), labels)
            optimizer.zero_grad()
            loss_ab.backward(retain_graph=True)
            loss_ba.backward()
            optimizer.step()
            history["a_to_b"].append(loss_ab.item())
            history["b_to_a"].append(loss_ba.item())
        print(epoch, {k: round(sum(v) / len(v), 4) for k, v in history.items()})


if __name__ == "__main__":
    main()
