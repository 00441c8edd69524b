"""pytorch/cat-sizes-must-match: torch.cat of tensors that differ outside the joined dimension."""

import torch
import torch.nn.functional as F

FIXES = {
    "workarounds.0": "match_other_dims",
}


def variant_skip_connection(fix=None):
    """A U-Net skip connection after an odd-sized feature map lost a pixel in pooling."""
    encoder = torch.randn(1, 8, 15, 15)
    decoder = F.interpolate(F.max_pool2d(encoder, 2), scale_factor=2)  # 14x14
    if fix == "match_other_dims":
        decoder = F.interpolate(decoder, size=encoder.shape[-2:])
    torch.cat([encoder, decoder], dim=1)


def variant_wrong_dim(fix=None):
    """Joining features side by side but concatenating along the batch dimension."""
    a, b = torch.randn(4, 3), torch.randn(4, 5)
    torch.cat([a, b], dim=1 if fix == "match_other_dims" else 0)


if __name__ == "__main__":
    variant_skip_connection()
