"""pytorch/expected-scalar-type: a batched matmul (bmm, baddbmm) of float32 and float64 tensors."""

import numpy as np
import torch

FIXES = {
    "workarounds.0": "cast_to_float",
}


def variant_numpy_float64(fix=None):
    """A matrix from NumPy (float64 by default) against float32 activations."""
    activations = torch.randn(2, 3, 4)
    weights = torch.from_numpy(np.ones((2, 4, 5)))
    if fix == "cast_to_float":
        weights = weights.float()
    torch.bmm(activations, weights)


def variant_double_scores(fix=None):
    """Attention scores made float64 by a Python-side computation, then weighted with float32 values."""
    scores = torch.softmax(torch.randn(2, 3, 3, dtype=torch.float64), dim=-1)
    values = torch.randn(2, 3, 4)
    if fix == "cast_to_float":
        scores = scores.to(values.dtype)
    torch.bmm(scores, values)


if __name__ == "__main__":
    variant_numpy_float64()
