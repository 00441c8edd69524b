"""pytorch/shape-invalid-for-input-size: view or reshape to a shape whose element count is not the
tensor's."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "infer_from_tensor",
}


def variant_hard_coded_flatten(fix=None):
    """x.view(-1, 16 * 5 * 5) written for 32x32 images, fed 28x28 ones."""
    features = nn.Conv2d(3, 16, 5)(torch.ones(2, 3, 28, 28))
    flat = features.flatten(1) if fix == "infer_from_tensor" else features.view(-1, 16 * 5 * 5)
    assert flat.shape[0] == 2


def variant_last_batch_smaller(fix=None):
    """view(batch_size, -1) with the configured batch size on a last batch that is smaller."""
    batch_size = 64
    last = torch.ones(10, 4)
    flat = last.view(last.size(0), -1) if fix == "infer_from_tensor" else last.view(batch_size, -1)
    assert flat.shape == (10, 4)


def variant_empty_input(fix=None):
    """An empty tensor (nothing survived filtering) reshaped to a fixed grid."""
    kept = torch.ones(0)
    grid = kept.reshape(0, 32) if fix == "infer_from_tensor" else kept.reshape(32, 32)
    assert grid.numel() == 0


if __name__ == "__main__":
    variant_hard_coded_flatten()
