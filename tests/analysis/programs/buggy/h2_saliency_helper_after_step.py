"""Image classifier that logs an input-saliency map every few steps.

The saliency helper asks autograd for d(loss)/d(input) -- after the training step has
already backwarded the same loss.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 6, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(6, 8, 3, padding=1),
            nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x):
        return self.fc(self.pool(self.body(x)).flatten(1))


def saliency(loss, images):
    (grad,) = torch.autograd.grad(loss, images)  # error: [double-backward]
    return grad.abs().amax(dim=1)


def train(model, data, labels, log_every=2, epochs=1, bs=8):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    maps = []
    step = 0
    for _ in range(epochs):
        for i in range(0, len(data), bs):
            images = data[i : i + bs].clone().requires_grad_(True)
            target = labels[i : i + bs]
            loss = F.cross_entropy(model(images), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % log_every == 0:
                maps.append(saliency(loss, images))
            step += 1
    return maps


if __name__ == "__main__":
    torch.manual_seed(0)
    data = torch.randn(32, 3, 8, 8)
    labels = torch.randint(0, 4, (32,))
    maps = train(SmallCNN(), data, labels)
    print(len(maps), maps[0].shape)
