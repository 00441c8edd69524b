"""Neural style transfer (Gatys et al.) with a tiny stand-in feature extractor.

The content/style targets are computed from the extractor before the
optimisation loop, without detaching them; the extractor's weights require grad.

Real report of this mechanism: https://github.com/zhangyu2234/Deep-learning-by-hand
The notebook "1.3 Problems I encountered" shows labels generated from weights created with
requires_grad=True: the labels carry a graph, and the second mini-batch's backward raises.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeatureExtractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2))

    def forward(self, x):
        f1 = self.block1(x)
        f2 = self.block2(f1)
        return [f1, f2]


def gram_matrix(feat):
    b, c, h, w = feat.shape
    f = feat.view(b, c, h * w)
    return f @ f.transpose(1, 2) / (c * h * w)


def style_transfer(extractor, content_img, style_img, steps=3, style_weight=1e4, content_weight=1.0):
    content_targets = extractor(content_img)
    style_targets = [gram_matrix(f) for f in extractor(style_img)]

    image = content_img.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([image], lr=0.05)
    for step in range(steps):
        optimizer.zero_grad()
        feats = extractor(image)
        content_loss = F.mse_loss(feats[1], content_targets[1])
        style_loss = sum(F.mse_loss(gram_matrix(f), t) for f, t in zip(feats, style_targets))
        loss = content_weight * content_loss + style_weight * style_loss
        loss.backward()  # error: [pre-loop-graph-backward]
        optimizer.step()
        with torch.no_grad():
            image.clamp_(0, 1)
        print(f"step {step}: content {content_loss.item():.4f} style {style_loss.item():.4f}")
    return image.detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = FeatureExtractor().eval()
    content = torch.rand(1, 3, 8, 8)
    style = torch.rand(1, 3, 8, 8)
    out = style_transfer(net, content, style)
    print(out.shape)
