"""Linear probing: the backbone is frozen with ``requires_grad_(False)`` (not ``no_grad``)
and its features are computed once, before the epochs, with an ordinary forward call.
Nothing in that forward requires grad, so the features carry no graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2)
        )

    def forward(self, x):
        return self.conv(x).flatten(1)


def main(epochs=5):
    torch.manual_seed(0)
    images = torch.randn(48, 1, 8, 8)
    labels = (images.mean((1, 2, 3)) > 0).long()
    backbone = Backbone().eval()
    backbone.requires_grad_(False)
    features = backbone(images)
    assert not features.requires_grad
    probe = nn.Linear(features.size(1), 2)
    optimizer = torch.optim.LBFGS(probe.parameters(), lr=0.5, max_iter=5)
    for epoch in range(epochs):

        def closure():
            optimizer.zero_grad()
            loss = F.cross_entropy(probe(features), labels) + 1e-3 * probe.weight.pow(2).sum()
            loss.backward()
            return loss

        loss = optimizer.step(closure)
        acc = (probe(features).argmax(-1) == labels).float().mean()
        print(epoch, round(loss.item(), 4), round(acc.item(), 3))


if __name__ == "__main__":
    main()
