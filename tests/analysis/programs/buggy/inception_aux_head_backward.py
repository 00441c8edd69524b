"""GoogLeNet-style classifier with an auxiliary head on an intermediate block.

The auxiliary loss gets its own backward call after the main loss.

Real report of this mechanism: https://github.com/OpenNMT/OpenNMT-py/issues/2153
A loss from an extra classification head on the shared encoder, backwarded on its own
besides the translation loss, raises this error.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AuxNet(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.block2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.aux = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, n_classes))
        self.fc = nn.Linear(16, n_classes)

    def forward(self, x):
        mid = self.block1(x)
        out = self.fc(self.block2(mid).flatten(1))
        if self.training:
            return out, self.aux(mid)
        return out


def train(model, epochs=2, steps=2, aux_weight=0.3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[1], gamma=0.1)
    for epoch in range(epochs):
        model.train()
        for _ in range(steps):
            x = torch.randn(4, 3, 8, 8)
            y = torch.randint(0, 5, (4,))
            optimizer.zero_grad()
            logits, aux_logits = model(x)
            main_loss = F.cross_entropy(logits, y)
            aux_loss = aux_weight * F.cross_entropy(aux_logits, y)
            main_loss.backward()
            aux_loss.backward()  # error: [shared-graph-backward]
            optimizer.step()
        scheduler.step()
        model.eval()
        with torch.no_grad():
            print(epoch, model(torch.randn(2, 3, 8, 8)).argmax(1).tolist())


if __name__ == "__main__":
    torch.manual_seed(0)
    train(AuxNet())
