"""pytorch/cross-entropy-target-dtype: class-index targets given as floats to cross_entropy / nll_loss."""

import numpy as np
import torch
from torch import nn

FIXES = {
    "workarounds.0": "long_targets",
}


def variant_float_labels(fix=None):
    logits = torch.randn(4, 3)
    targets = torch.tensor([0.0, 2.0, 1.0, 1.0])
    if fix == "long_targets":
        targets = targets.long()
    nn.CrossEntropyLoss()(logits, targets)


def variant_numpy_labels(fix=None):
    """Labels from a NumPy array of float64."""
    logits = torch.randn(4, 3)
    targets = torch.from_numpy(np.array([0, 2, 1, 1], dtype=np.float64))
    if fix == "long_targets":
        targets = targets.long()
    nn.functional.cross_entropy(logits, targets)


def variant_nll(fix=None):
    log_probs = torch.randn(4, 3).log_softmax(-1)
    targets = torch.tensor([1.0, 0.0, 2.0, 2.0])
    if fix == "long_targets":
        targets = targets.to(torch.long)
    nn.functional.nll_loss(log_probs, targets)


if __name__ == "__main__":
    variant_float_labels()
