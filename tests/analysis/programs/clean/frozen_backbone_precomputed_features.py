"""Linear probe on a frozen feature extractor.

The backbone's parameters are frozen (requires_grad=False) and the inputs carry no
grad, so the features can be computed once before training: they have no graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        return F.adaptive_avg_pool2d(F.relu(self.conv2(x)), 1).flatten(1)


def freeze(module):
    for p in module.parameters():
        p.requires_grad = False
    module.eval()
    return module


def main(epochs=3):
    torch.manual_seed(0)
    backbone = freeze(Backbone())
    images = torch.randn(24, 3, 8, 8)
    labels = torch.randint(0, 4, (24,))

    features = backbone(images)
    features = (features - features.mean(0)) / (features.std(0) + 1e-6)

    probe = nn.Linear(16, 4)
    optimizer = torch.optim.LBFGS(probe.parameters(), lr=0.5, max_iter=5)
    history = []

    def closure():
        optimizer.zero_grad()
        loss = F.cross_entropy(probe(features), labels) + 1e-3 * probe.weight.pow(2).sum()
        loss.backward()
        return loss

    for epoch in range(epochs):
        loss = optimizer.step(closure)
        history.append(loss.item())
        with torch.no_grad():
            acc = (probe(features).argmax(1) == labels).float().mean().item()
        print(f"epoch {epoch}: loss {history[-1]:.4f} acc {acc:.3f}")
    return history


if __name__ == "__main__":
    main()
