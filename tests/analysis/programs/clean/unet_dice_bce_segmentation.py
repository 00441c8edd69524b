"""Binary segmentation with a tiny U-Net; BCE and soft-Dice losses are summed and backpropagated once.
Validation IoU is computed under torch.inference_mode().
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class TinyUNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.enc1, self.enc2 = conv_block(1, c), conv_block(c, 2 * c)
        self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.dec = conv_block(2 * c, c)
        self.out = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        d = self.dec(torch.cat([self.up(e2), e1], dim=1))
        return self.out(d)


def dice_loss(logits, target, eps=1.0):
    probs = torch.sigmoid(logits)
    inter = (probs * target).sum((1, 2, 3))
    union = probs.sum((1, 2, 3)) + target.sum((1, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def iou(logits, target):
    pred = (logits > 0).float()
    inter = (pred * target).sum()
    return (inter / (pred.sum() + target.sum() - inter + 1e-6)).item()


def main(epochs=2):
    torch.manual_seed(0)
    images = torch.rand(6, 1, 8, 8)
    masks = (images > 0.5).float()
    model = TinyUNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    bce = nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        model.train()
        for i in range(0, 6, 3):
            x, m = images[i:i + 3], masks[i:i + 3]
            logits = model(x)
            loss_bce = bce(logits, m)
            loss_dice = dice_loss(logits, m)
            loss = loss_bce + loss_dice
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.inference_mode():
            score = iou(model(images), masks)
        print(f"epoch {epoch}: bce {loss_bce.item():.4f} dice {loss_dice.item():.4f} iou {score:.3f}")


if __name__ == "__main__":
    main()
