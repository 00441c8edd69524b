"""A shared encoder with a classification head and a reconstruction head."""

import torch
import torch.nn.functional as F
from torch import nn


class MultiTask(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.classifier = nn.Linear(32, 3)
        self.decoder = nn.Linear(32, 10)


def train(model: MultiTask, batches) -> None:
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for x, y in batches:
        features = model.encoder(x)
        cls_loss = F.cross_entropy(model.classifier(features), y)
        rec_loss = F.mse_loss(model.decoder(features), x)
        optimizer.zero_grad()
        cls_loss.backward()
        rec_loss.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randn(8, 10), torch.randint(0, 3, (8,))) for _ in range(3)]
    train(MultiTask(), batches)
