"""Non-stationary texture synthesis by texture expansion (GAN): the generator doubles a
texture crop; its losses are a style (Gram) loss, a perceptual loss and the adversarial
loss, all on the same expanded output.

Report: https://github.com/jessemelpolio/non-stationary_texture_syn/issues/15 -- "about
the style_loss backward": the asker compares (style_loss + perceptual_loss +
gan_G).backward() with the repository's style_loss.backward(retain_graph=True) followed
by (perceptual_loss + gan_G).backward(); the author keeps the retain. All three losses go
through the generator's output, so backwarding the style loss first without the retain,
as here, leaves the second backward to a freed generator graph.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def gram(features):
    b, c, h, w = features.shape
    f = features.view(b, c, h * w)
    return f @ f.transpose(1, 2) / (c * h * w)


def main(steps=3):
    torch.manual_seed(0)
    net_g = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Upsample(scale_factor=2), nn.Conv2d(16, 3, 3, padding=1))
    net_d = nn.Sequential(nn.Conv2d(3, 8, 4, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(8, 1, 4, stride=2, padding=1))
    vgg = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
    vgg.requires_grad_(False)
    optimizer_g = torch.optim.Adam(net_g.parameters(), lr=2e-4)
    texture = torch.rand(1, 3, 16, 16)
    for step in range(steps):
        top = torch.randint(0, 9, (1,)).item()
        crop = texture[:, :, top : top + 8, top : top + 8]
        target = F.interpolate(texture, size=(16, 16))
        fake = net_g(crop)
        style_loss = F.mse_loss(gram(vgg(fake)), gram(vgg(target)))
        perceptual_loss = F.mse_loss(vgg(fake), vgg(target))
        gan_g = F.softplus(-net_d(fake)).mean()
        optimizer_g.zero_grad()
        style_loss.backward()
        (perceptual_loss + gan_g).backward()  # error: [shared-graph-backward]
        optimizer_g.step()
        print(f"step {step}: style {style_loss.item():.5f} perceptual {perceptual_loss.item():.4f}")


if __name__ == "__main__":
    main()
