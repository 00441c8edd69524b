"""pytorch/mat1-mat2-dtype: a Linear layer (float32 weights) fed float64 or integer input."""

import numpy as np
import torch
from torch import nn

FIXES = {
    "dead_ends.0": "double_everything",
    "workarounds.0": "cast_input",
}


def variant_numpy_input(fix=None):
    layer = nn.Linear(3, 2)
    x = torch.from_numpy(np.random.rand(4, 3))
    if fix == "cast_input":
        x = x.float()
    elif fix == "double_everything":
        layer = layer.double()
    out = layer(x)
    assert out.dtype == torch.float32, f"the model now runs in {out.dtype}"


def variant_integer_features(fix=None):
    """Integer-coded features (torch.tensor of Python ints is int64)."""
    layer = nn.Linear(3, 2)
    x = torch.tensor([[1, 0, 2], [0, 1, 1]])
    if fix == "cast_input":
        x = x.float()
    elif fix == "double_everything":
        layer = layer.double()
    layer(x)


def variant_gru_cell_double(fix=None):
    cell = nn.GRUCell(3, 4)
    x = torch.ones(2, 3, dtype=torch.float64)
    if fix == "cast_input":
        x = x.float()
    elif fix == "double_everything":
        cell = cell.double()
    out = cell(x)
    assert out.dtype == torch.float32, f"the model now runs in {out.dtype}"


if __name__ == "__main__":
    variant_numpy_input()
