"""Depth-and-segmentation toy model on a shared convolutional encoder, trained with an
optional gradient scaler chosen once through a ``backward_fn`` lambda.

Report: https://discuss.pytorch.org/t/multi-task-learning-whats-the-difference-between-jointly-backward-and-backward-with-retain-graph-true/28162
-- on a multi-task graph, ``loss1.backward(retain_graph=True); loss2.backward()`` and
``(loss1 + loss2).backward()`` give the same gradients; without ``retain_graph=True``
the second backward through the shared part fails.

Here the task losses are backwarded one after the other through the lambda, the first
without ``retain_graph``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.depth = nn.Conv2d(8, 1, 1)
        self.seg = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        feats = self.encoder(x)
        return self.depth(feats), self.seg(feats)


def main(steps=3, use_scaler=False):
    torch.manual_seed(0)
    images = torch.randn(6, 3, 8, 8)
    depth_gt = images.mean(1, keepdim=True).abs()
    seg_gt = (images[:, 0] > 0).long() + (images[:, 1] > 0).long()
    model = TwoTaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", enabled=use_scaler)
    if use_scaler:
        backward_fn = lambda loss: scaler.scale(loss).backward()
    else:
        backward_fn = lambda loss: loss.backward()  # error: [shared-graph-backward]
    for step in range(steps):
        optimizer.zero_grad()
        depth, seg = model(images)
        depth_loss = F.l1_loss(depth, depth_gt)
        seg_loss = F.cross_entropy(seg, seg_gt)
        backward_fn(depth_loss)
        backward_fn(seg_loss)
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} depth {depth_loss.item():.4f} seg {seg_loss.item():.4f}")


if __name__ == "__main__":
    main()
