"""pytorch/op-not-implemented-for-dtype: an operation given a dtype its kernel has no
implementation for (integer logits, an integer weight, a boolean mask)."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "to_float",
}


def variant_integer_logits(fix=None):
    """Scores built from integer counts fed to cross_entropy."""
    counts = torch.tensor([[3, 1, 0], [0, 2, 5]])
    logits = counts.float() if fix == "to_float" else counts
    loss = nn.functional.cross_entropy(logits, torch.tensor([0, 2]))
    assert loss.item() > 0


def variant_init_integer_tensor(fix=None):
    """A weight created from integers (torch.tensor([[1, 0], [0, 1]])) then initialised at random."""
    weight = torch.tensor([[1, 0], [0, 1]])
    weight = weight.float() if fix == "to_float" else weight
    nn.init.normal_(weight)
    assert weight.dtype == torch.float32


def variant_pool_a_boolean_mask(fix=None):
    """A padding mask (bool) downsampled with max pooling."""
    mask = torch.tensor([[[True, True, False, False]]])
    pooled = nn.functional.max_pool1d(mask.float() if fix == "to_float" else mask, 2)
    assert pooled.shape == (1, 1, 2)


if __name__ == "__main__":
    variant_integer_logits()
