"""Multi-task face-attribute model: a shared trunk with classification and regression heads.

Each head has its own loss and the author backpropagates them one at a time.

Real report of this mechanism: https://github.com/naver-ai/StyleMapGAN/issues/16
Two losses from one forward pass (adv_loss and w_rec_loss) are backwarded one after the
other and the second backward raises; the reporter backwarded their sum instead.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SharedTrunk(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.gender = nn.Linear(8, 2)
        self.age = nn.Linear(8, 1)

    def forward(self, x):
        feats = self.conv(x)
        return self.gender(feats), self.age(feats).squeeze(-1)


def train_one_epoch(model, loader, optimizer, age_weight=0.1):
    model.train()
    stats = {"gender": 0.0, "age": 0.0}
    for images, gender, age in loader:
        optimizer.zero_grad()
        gender_logits, age_pred = model(images)
        gender_loss = F.cross_entropy(gender_logits, gender)
        age_loss = age_weight * F.l1_loss(age_pred, age)
        gender_loss.backward()
        age_loss.backward()  # error: [shared-graph-backward]
        optimizer.step()
        stats["gender"] += gender_loss.item()
        stats["age"] += age_loss.item()
    return {k: v / len(loader) for k, v in stats.items()}


def main():
    torch.manual_seed(0)
    n = 16
    ds = TensorDataset(torch.randn(n, 3, 8, 8), torch.randint(0, 2, (n,)), torch.rand(n) * 80)
    loader = DataLoader(ds, batch_size=8, shuffle=True)
    model = SharedTrunk()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        print(epoch, train_one_epoch(model, loader, optimizer))


if __name__ == "__main__":
    main()
