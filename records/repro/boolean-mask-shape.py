"""pytorch/boolean-mask-shape: a boolean mask whose shape does not match the dimensions it indexes."""

import torch

FIXES = {
    "workarounds.0": "mask_shaped_like",
}


def variant_mask_per_image_not_per_anchor(fix=None):
    """A (batch, anchors) mask applied to the anchors flattened to (batch * anchors, 1)."""
    scores = torch.arange(12.0).view(12, 1)
    positive = torch.zeros(4, 3, dtype=torch.bool)
    positive[0, 1] = True
    mask = positive.view(-1) if fix == "mask_shaped_like" else positive
    assert scores[mask].shape == (1, 1)


def variant_mask_from_another_batch(fix=None):
    """A mask kept from the previous, larger batch."""
    batch = torch.ones(5, 3)
    keep = torch.tensor([True, False, True, True])
    if fix == "mask_shaped_like":
        keep = torch.ones(len(batch), dtype=torch.bool)
    assert batch[keep].shape[1] == 3


def variant_mask_for_other_columns(fix=None):
    """A (N, 2) mask built for two classes on (N, 3) scores."""
    scores = torch.ones(5, 3)
    mask = torch.ones(5, 2, dtype=torch.bool)
    if fix == "mask_shaped_like":
        mask = torch.ones_like(scores, dtype=torch.bool)
    assert scores[mask].numel() == 15


if __name__ == "__main__":
    variant_mask_per_image_not_per_anchor()
