"""Artistic glyph synthesis (AGIS-Net style) on toy 8x8 glyphs: a shared content encoder
feeds a shape decoder and a texture decoder; the shape loss and the texture/adversarial
losses are backwarded separately in one generator step.

Twin of buggy/agisnet_shape_loss_then_texture_losses.py as the repository does it and
the thread explains: the first backward keeps the graph (retain_graph=True) because the
second goes through the shared encoder output again.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AGISGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU())
        self.shape_decoder = nn.Conv2d(8, 1, 3, padding=1)
        self.texture_decoder = nn.Conv2d(8 + 1, 3, 3, padding=1)

    def forward(self, content):
        features = self.encoder(content)
        shape = torch.sigmoid(self.shape_decoder(features))
        texture = torch.tanh(self.texture_decoder(torch.cat([features, shape], dim=1)))
        return shape, texture


def main(steps=3):
    torch.manual_seed(0)
    net_g = AGISGenerator()
    net_d = nn.Sequential(nn.Conv2d(3, 8, 4, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(8 * 16, 1))
    net_d.requires_grad_(False)
    optimizer_g = torch.optim.Adam(net_g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for step in range(steps):
        content = (torch.rand(4, 1, 8, 8) > 0.5).float()
        target_shape = content.roll(1, dims=-1)
        target_texture = target_shape.expand(-1, 3, -1, -1) * 2 - 1
        fake_shape, fake_texture = net_g(content)
        loss_1 = F.l1_loss(fake_shape, target_shape) * 100.0
        loss_2 = F.l1_loss(fake_texture, target_texture) * 100.0 + F.softplus(-net_d(fake_texture)).mean()
        optimizer_g.zero_grad()
        loss_1.backward(retain_graph=True)
        loss_2.backward()
        assert all(p.grad is not None for p in net_g.parameters())
        optimizer_g.step()
        print(f"step {step}: shape {loss_1.item():.3f} texture {loss_2.item():.3f}")


if __name__ == "__main__":
    main()
