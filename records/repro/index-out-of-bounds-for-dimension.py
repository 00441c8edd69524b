"""pytorch/index-out-of-bounds-for-dimension: an integer index past the end of a dimension."""

import torch

FIXES = {
    "workarounds.0": "in_range",
}


def variant_off_by_one(fix=None):
    """for i in range(1, len(x) + 1): x[i] — the last index is len(x)."""
    steps = torch.arange(14.0)
    total = 0.0
    for i in range(len(steps)) if fix == "in_range" else range(1, len(steps) + 1):
        total += float(steps[i])
    assert total == 91


def variant_select_last_step(fix=None):
    """select() of a time step counted from 1, on a (steps, batch, features) tensor."""
    sequence = torch.ones(14, 4, 8)
    last = sequence.size(0) - 1 if fix == "in_range" else sequence.size(0)
    assert sequence.select(0, last).shape == (4, 8)


def variant_fixed_class_column(fix=None):
    """The probability of class 5 read from scores of 5 classes."""
    scores = torch.ones(3, 5)
    column = 4 if fix == "in_range" else 5
    assert scores[:, column].shape == (3,)


if __name__ == "__main__":
    variant_off_by_one()
