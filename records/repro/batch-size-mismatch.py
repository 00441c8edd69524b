"""pytorch/batch-size-mismatch: a classification loss given more targets than predictions."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "flatten_consistently",
}


def variant_sequence_logits(fix=None):
    """Token logits (N, T, C) flattened to (N*T, C)... but the targets kept as (N,)."""
    logits = torch.randn(2, 4, 10)
    targets = torch.randint(0, 10, (2, 4))
    if fix == "flatten_consistently":
        nn.functional.cross_entropy(logits.reshape(-1, 10), targets.reshape(-1))
    else:
        nn.functional.cross_entropy(logits.reshape(-1, 10), targets[:, 0])


def variant_flatten_eats_batch(fix=None):
    """view(-1, 16*5*5) after a conv stack whose feature map is not 5x5 merges samples."""
    features = torch.randn(4, 16, 10, 10)
    head = nn.Linear(16 * 5 * 5, 10)
    flat = features.flatten(1) if fix == "flatten_consistently" else features.view(-1, 16 * 5 * 5)
    if fix == "flatten_consistently":
        head = nn.Linear(16 * 10 * 10, 10)
    nn.functional.cross_entropy(head(flat), torch.randint(0, 10, (4,)))


if __name__ == "__main__":
    variant_sequence_logits()
