"""pytorch/index-put-shape-mismatch: an indexed assignment whose value has another shape than the
elements the index selects."""

import torch

FIXES = {
    "workarounds.0": "value_as_selected",
}


def variant_mask_selects_fewer_rows(fix=None):
    """A boolean mask keeps 2 of 3 rows; the value still has a row for every one."""
    target = torch.zeros(3, 4)
    keep = torch.tensor([True, False, True])
    value = torch.arange(12.0).view(3, 4)
    target[keep] = value[keep] if fix == "value_as_selected" else value
    assert target[1].sum() == 0


def variant_value_transposed(fix=None):
    """Sparse features scattered into a dense grid: features are (points, channels), the indexed
    result (channels, points)."""
    dense = torch.zeros(8, 5, 5)
    rows, cols = torch.tensor([0, 1, 2]), torch.tensor([4, 3, 2])
    features = torch.ones(3, 8)
    dense[:, rows, cols] = features.t() if fix == "value_as_selected" else features
    assert dense.sum() == 24


def variant_more_values_than_indices(fix=None):
    """Targets assigned at matched positions: the value has one entry per query, not per match."""
    labels = torch.zeros(10, dtype=torch.long)
    matched = torch.tensor([1, 4, 7])
    per_query = torch.tensor([3, 3, 5, 5, 5, 2])
    labels[matched] = per_query[: len(matched)] if fix == "value_as_selected" else per_query
    assert labels.count_nonzero() == 3


if __name__ == "__main__":
    variant_mask_selects_fewer_rows()
