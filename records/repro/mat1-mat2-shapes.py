"""pytorch/mat1-mat2-shapes: a Linear layer (or a matmul) whose in_features do not fit its input."""

import torch
from torch import nn

FIXES = {
    "dead_ends.0": "transpose_input",
    "workarounds.0": "fix_in_features",
    "workarounds.1": "flatten_input",
}


def variant_wrong_in_features(fix=None):
    """nn.Linear(4, 5) fed 3 features."""
    layer = nn.Linear(3 if fix == "fix_in_features" else 4, 5)
    x = torch.randn(2, 3)
    layer(x.t() if fix == "transpose_input" else x)


def variant_after_conv_without_flatten(fix=None):
    """A classifier head after a conv layer, with in_features computed for the wrong image size."""
    conv = nn.Conv2d(1, 4, 3)
    x = conv(torch.randn(2, 1, 8, 8)).flatten(1)  # 4 * 6 * 6 = 144 features
    head = nn.Linear(144 if fix == "fix_in_features" else 4 * 7 * 7, 10)
    head(x.t() if fix == "transpose_input" else x)


def variant_unflattened_images(fix=None):
    """An MLP fed images of shape (N, 1, 4, 4) without flattening them."""
    mlp = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 2))
    x = torch.randn(2, 1, 4, 4).view(2, 4, 4)  # (2, 4, 4): the last dimension is 4, not 16
    if fix == "flatten_input":
        x = x.flatten(1)
    elif fix == "fix_in_features":
        mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    elif fix == "transpose_input":
        x = x.transpose(-1, -2)
    out = mlp(x)
    assert out.shape == (2, 2), f"one prediction per image expected, got {tuple(out.shape)}"


if __name__ == "__main__":
    variant_wrong_in_features()
