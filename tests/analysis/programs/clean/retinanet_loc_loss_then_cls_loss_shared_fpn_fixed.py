"""RetinaNet-style dense detector on toy images: box and class heads on one shared FPN.

Twin of buggy/retinanet_loc_loss_then_cls_loss_shared_fpn.py: the two losses share the FPN,
so they are summed and backwarded once, which gives each head and the shared FPN the same
gradients as the two backwards would have, through one graph walked once.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_ANCHORS = 3
NUM_CLASSES = 4


class TinyFPN(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, stride=2, padding=1), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU())
        self.lateral = nn.Conv2d(width, width, 1)

    def forward(self, x):
        c1 = self.stem(x)
        c2 = self.down(c1)
        p2 = self.lateral(c2)
        p1 = self.lateral(c1) + F.interpolate(p2, scale_factor=2.0)
        return [p1, p2]


def make_head(width, out_planes):
    return nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, out_planes, 3, padding=1))


class RetinaNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.fpn = TinyFPN(width)
        self.loc_head = make_head(width, NUM_ANCHORS * 4)
        self.cls_head = make_head(width, NUM_ANCHORS * NUM_CLASSES)

    def forward(self, x):
        loc_preds, cls_preds = [], []
        for fm in self.fpn(x):
            loc = self.loc_head(fm).permute(0, 2, 3, 1).reshape(x.size(0), -1, 4)
            cls = self.cls_head(fm).permute(0, 2, 3, 1).reshape(x.size(0), -1, NUM_CLASSES)
            loc_preds.append(loc)
            cls_preds.append(cls)
        return torch.cat(loc_preds, 1), torch.cat(cls_preds, 1)


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    onehot = F.one_hot(targets, NUM_CLASSES).float()
    p = logits.sigmoid()
    pt = p * onehot + (1 - p) * (1 - onehot)
    weight = alpha * onehot + (1 - alpha) * (1 - onehot)
    bce = F.binary_cross_entropy_with_logits(logits, onehot, reduction="none")
    return (weight * (1 - pt).pow(gamma) * bce).sum() / max(1, targets.numel())


def make_batch(g, n=4, size=16):
    images = torch.randn(n, 3, size, size, generator=g)
    anchors = NUM_ANCHORS * ((size // 2) ** 2 + (size // 4) ** 2)
    loc_targets = torch.randn(n, anchors, 4, generator=g)
    cls_targets = torch.randint(0, NUM_CLASSES, (n, anchors), generator=g)
    return images, loc_targets, cls_targets


def train(steps=3):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    net = RetinaNet()
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
    for step in range(steps):
        images, loc_targets, cls_targets = make_batch(g)
        loc_preds, cls_preds = net(images)
        loc_loss = F.smooth_l1_loss(loc_preds, loc_targets)
        cls_loss = focal_loss(cls_preds, cls_targets)
        optimizer.zero_grad()
        (loc_loss + cls_loss).backward()
        assert all(p.grad is not None for p in net.parameters())
        optimizer.step()
        print(f"step {step}: loc {loc_loss.item():.4f} cls {cls_loss.item():.4f}")
    return net


if __name__ == "__main__":
    train()
