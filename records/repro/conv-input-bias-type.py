"""pytorch/conv-input-bias-type: a convolution (float32 weights) fed float64 input."""

import numpy as np
import torch
from torch import nn

FIXES = {
    "workarounds.0": "cast_input",
}


def variant_numpy_image(fix=None):
    conv = nn.Conv2d(3, 2, 3)
    x = torch.from_numpy(np.random.rand(1, 3, 8, 8))
    conv(x.float() if fix == "cast_input" else x)


def variant_conv1d_double(fix=None):
    conv = nn.Conv1d(2, 2, 3)
    x = torch.randn(1, 2, 10, dtype=torch.float64)
    conv(x.to(torch.float32) if fix == "cast_input" else x)


if __name__ == "__main__":
    variant_numpy_image()
