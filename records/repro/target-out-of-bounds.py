"""pytorch/target-out-of-bounds: a class index >= the number of classes the logits have."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "num_classes",
    "workarounds.1": "zero_based_labels",
    "workarounds.2": "ignore_index",
}


def variant_head_too_small(fix=None):
    """Labels 0..10 (11 classes) but a head with 10 outputs."""
    head = nn.Linear(3, 11 if fix == "num_classes" else 10)
    targets = torch.tensor([0, 3, 10, 7])
    nn.functional.cross_entropy(head(torch.randn(4, 3)), targets)


def variant_one_based_labels(fix=None):
    """Labels numbered 1..C from a CSV, used as indices 0..C-1."""
    head = nn.Linear(3, 5)
    targets = torch.tensor([1, 2, 5, 4])
    if fix == "zero_based_labels":
        targets = targets - 1
    elif fix == "num_classes":
        head = nn.Linear(3, 6)
    nn.functional.nll_loss(head(torch.randn(4, 3)).log_softmax(-1), targets)


def variant_ignore_index_as_negative(fix=None):
    """Padding labelled -1 where the loss's ignore_index is the default -100."""
    logits = torch.randn(4, 5)
    targets = torch.tensor([1, -1, 2, -1])
    if fix == "ignore_index":
        nn.functional.cross_entropy(logits, targets, ignore_index=-1)
    else:
        nn.functional.cross_entropy(logits, targets)


if __name__ == "__main__":
    variant_head_too_small()
