"""A center loss whose moving class centers live on the module and are updated through a local."""

import torch
import torch.nn.functional as F
from torch import nn


class CenterLoss(nn.Module):
    def __init__(self, classes=3, dim=4, momentum=0.5):
        super().__init__()
        self.encoder = nn.Linear(6, dim)
        self.momentum = momentum
        self.centers = torch.zeros(classes, dim)

    def forward(self, x, labels):
        features = self.encoder(x)
        onehot = F.one_hot(labels, self.centers.shape[0]).float()
        batch_centers = (onehot.T @ features) / onehot.sum(0).clamp(min=1).unsqueeze(1)
        centers = self.momentum * self.centers + (1 - self.momentum) * batch_centers
        loss = (features - centers[labels]).pow(2).sum(1).mean()
        self.centers = centers.detach()
        return loss


torch.manual_seed(0)
model = CenterLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x, labels = torch.randn(8, 6), torch.randint(0, 3, (8,))
    loss = model(x, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
