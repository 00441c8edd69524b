"""pytorch/tensor-size-mismatch: an elementwise op on shapes that do not broadcast."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "align_shapes",
}


def variant_add_different_widths(fix=None):
    a, b = torch.ones(2, 3), torch.ones(2, 4)
    return a + (b[:, :3] if fix == "align_shapes" else b)


def variant_loss_target_shape(fix=None):
    """A manual loss between predictions (N, 10) and one-hot targets built for 5 classes."""
    logits = nn.Linear(3, 10)(torch.randn(4, 3))
    target = nn.functional.one_hot(torch.tensor([0, 1, 2, 3]), num_classes=10 if fix == "align_shapes" else 5)
    return ((logits - target) ** 2).mean()


def variant_attention_mask(fix=None):
    """A padding mask built for a different sequence length than the scores."""
    scores = torch.randn(2, 6, 6)
    mask = torch.ones(2, 1, 6 if fix == "align_shapes" else 5)
    return scores * mask


if __name__ == "__main__":
    variant_add_different_widths()
