"""pytorch/interpolate-spatial-dims: F.interpolate given an input without batch and channel dimensions."""

import torch
import torch.nn.functional as F

FIXES = {
    "workarounds.0": "add_batch",
}


def variant_single_image(fix=None):
    """An image [C, H, W] resized to (H', W'): interpolate reads it as [N, C, L]."""
    image = torch.randn(3, 24, 40)
    x = image.unsqueeze(0) if fix == "add_batch" else image
    out = F.interpolate(x, size=(32, 32), mode="bilinear", align_corners=False)
    assert out.shape[-2:] == (32, 32)


def variant_single_mask(fix=None):
    """A mask [H, W] resized for a loss."""
    mask = torch.rand(24, 40)
    x = mask[None, None] if fix == "add_batch" else mask
    out = F.interpolate(x, size=(12, 20), mode="nearest")
    assert out.shape[-2:] == (12, 20)


if __name__ == "__main__":
    variant_single_image()
