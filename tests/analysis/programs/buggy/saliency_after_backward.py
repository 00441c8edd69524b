"""Image classifier that logs an input-saliency statistic during training.

After the training backward, the saliency is taken as the gradient of the same
loss with respect to the input images.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, kernel_size=3, padding=1)
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def train_epoch(model, loader, optimizer, epoch, log=None):
    model.train()
    for batch_idx, (images, labels) in enumerate(loader):
        images.requires_grad_(True)
        optimizer.zero_grad()
        output = model(images)
        loss = F.cross_entropy(output, labels)
        loss.backward()
        optimizer.step()
        saliency = torch.autograd.grad(loss, images)[0]  # error: [double-backward]
        if log is not None:
            log.append((epoch, batch_idx, loss.item(), saliency.abs().mean().item()))


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in loader:
            correct += (model(images).argmax(1) == labels).sum().item()
    return correct / len(loader.dataset)


def main():
    torch.manual_seed(0)
    ds = TensorDataset(torch.randn(32, 1, 8, 8), torch.randint(0, 4, (32,)))
    train_loader = DataLoader(ds, batch_size=8, shuffle=True)
    val_loader = DataLoader(ds, batch_size=16)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    log = []
    for epoch in range(1, 3):
        train_epoch(model, train_loader, optimizer, epoch, log)
        print(f"epoch {epoch} acc {evaluate(model, val_loader):.3f}")


if __name__ == "__main__":
    main()
