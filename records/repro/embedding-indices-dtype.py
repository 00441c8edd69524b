"""pytorch/embedding-indices-dtype: nn.Embedding given floating-point indices."""

import numpy as np
import torch
from torch import nn

FIXES = {
    "workarounds.0": "long_indices",
}


def _lookup(indices, fix):
    embedding = nn.Embedding(10, 4)
    out = embedding(indices.long() if fix == "long_indices" else indices)
    assert out.shape == (*indices.shape, 4)


def variant_tensor_constructor(fix=None):
    """torch.Tensor([...]) makes float32, not the int64 ids the list held."""
    _lookup(torch.Tensor([[1, 2, 3]]), fix)


def variant_padding_with_zeros(fix=None):
    """A batch padded with torch.zeros (float) and the token ids copied in."""
    batch = torch.zeros(2, 5)
    batch[0, :3] = torch.tensor([4, 5, 6])
    _lookup(batch, fix)


def variant_ids_from_numpy_floats(fix=None):
    """Token ids read into a float64 NumPy array (np.loadtxt, pandas) then converted."""
    _lookup(torch.from_numpy(np.array([[7.0, 8.0]])), fix)


if __name__ == "__main__":
    variant_tensor_constructor()
