"""pytorch/conv-input-channels-mismatch: a convolution given an input with the wrong channel count."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "match_in_channels",
    "workarounds.1": "channels_first",
}


def variant_grayscale_into_rgb_model(fix=None):
    conv = nn.Conv2d(3, 16, 3)
    x = torch.randn(1, 1, 28, 28)
    if fix == "match_in_channels":
        x = x.expand(-1, 3, -1, -1)
    conv(x)


def variant_channels_last_input(fix=None):
    """An image batch in (N, H, W, C) layout, as NumPy and PIL hand it over."""
    conv = nn.Conv2d(3, 8, 3)
    x = torch.randn(2, 32, 32, 3)
    if fix == "channels_first":
        x = x.permute(0, 3, 1, 2)
    conv(x)


def variant_second_layer_in_channels(fix=None):
    """The second conv's in_channels does not equal the first's out_channels."""
    model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Conv2d(16 if fix == "match_in_channels" else 32, 8, 3))
    model(torch.randn(1, 3, 16, 16))


if __name__ == "__main__":
    variant_grayscale_into_rgb_model()
