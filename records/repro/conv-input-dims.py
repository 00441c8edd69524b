"""pytorch/conv-input-dims: a Conv2d given an input with neither 3 (C, H, W) nor 4 (N, C, H, W) dims."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "add_dims",
}


def variant_single_grayscale_image(fix=None):
    """A 28x28 image without its channel and batch dimensions."""
    conv = nn.Conv2d(1, 4, 3)
    image = torch.randn(28, 28)
    conv(image[None, None] if fix == "add_dims" else image)


def variant_video_batch(fix=None):
    """A batch of clips (N, T, C, H, W) passed to a 2-D convolution."""
    conv = nn.Conv2d(3, 4, 3)
    clips = torch.randn(2, 5, 3, 16, 16)
    conv(clips.flatten(0, 1) if fix == "add_dims" else clips)


if __name__ == "__main__":
    variant_single_grayscale_image()
