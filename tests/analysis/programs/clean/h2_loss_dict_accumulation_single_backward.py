"""A detection-style model with several loss terms kept in a dict. The terms are weighted
and summed into one loss per micro-batch (one backward), with gradient accumulation over
``accum_steps`` micro-batches; logging reads ``{k: v.item()}``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

WEIGHTS = {"cls": 1.0, "box": 2.0, "obj": 0.5}


class Detector(nn.Module):
    def __init__(self, d=12, n_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.heads = nn.ModuleDict({"cls": nn.Linear(32, n_classes), "box": nn.Linear(32, 4), "obj": nn.Linear(32, 1)})

    def forward(self, x):
        feats = self.backbone(x)
        return {name: head(feats) for name, head in self.heads.items()}


def criterion(outputs, targets):
    return {
        "cls": F.cross_entropy(outputs["cls"], targets["cls"]),
        "box": F.smooth_l1_loss(outputs["box"], targets["box"]),
        "obj": F.binary_cross_entropy_with_logits(outputs["obj"].squeeze(-1), targets["obj"]),
    }


def batches(n=6, bs=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        x = torch.randn(bs, 12, generator=g)
        yield x, {
            "cls": torch.randint(0, 4, (bs,), generator=g),
            "box": torch.rand(bs, 4, generator=g),
            "obj": (torch.rand(bs, generator=g) > 0.5).float(),
        }


def main(accum_steps=3, epochs=2):
    torch.manual_seed(0)
    model = Detector()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(epochs):
        logs = {k: 0.0 for k in WEIGHTS}
        for i, (x, targets) in enumerate(batches()):
            losses = criterion(model(x), targets)
            total = sum(WEIGHTS[k] * v for k, v in losses.items()) / accum_steps
            total.backward()
            for k, v in losses.items():
                logs[k] += v.item()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        print(epoch, {k: round(v, 3) for k, v in logs.items()})


if __name__ == "__main__":
    main()
