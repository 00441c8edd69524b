"""Fine-tune a pretrained-ish backbone with a lower LR than the new head.

Two optimizers, one shared helper that does zero_grad/backward/step; the
same loss is passed to it once per optimizer.

Real report of this mechanism: https://github.com/TingsongYu/PyTorch-Tutorial-2nd/issues/33
Calling backward() a second time on the same loss raises this error; the maintainer answers
that a second backward through one graph needs retain_graph=True on the first.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backbone-lr", type=float, default=1e-4)
    parser.add_argument("--head-lr", type=float, default=1e-2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8)
    args, _ = parser.parse_known_args()
    return args


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())

    def forward(self, x):
        return self.features(x)


def optimize(loss, optimizer, max_norm=5.0):
    optimizer.zero_grad()
    loss.backward()  # error: [double-backward]
    params = [p for group in optimizer.param_groups for p in group["params"]]
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()


def main():
    args = parse_args()
    torch.manual_seed(0)
    backbone = Backbone()
    head = nn.Linear(16, 5)
    backbone_opt = torch.optim.SGD(backbone.parameters(), lr=args.backbone_lr, momentum=0.9)
    head_opt = torch.optim.Adam(head.parameters(), lr=args.head_lr)

    for epoch in range(args.epochs):
        for _ in range(2):
            images = torch.randn(args.batch_size, 1, 10, 10)
            targets = torch.randint(0, 5, (args.batch_size,))
            logits = head(backbone(images))
            loss = F.cross_entropy(logits, targets, label_smoothing=0.1)
            optimize(loss, head_opt)
            optimize(loss, backbone_opt)
        print(f"epoch {epoch} done, last loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
