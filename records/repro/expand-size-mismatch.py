"""pytorch/expand-size-mismatch: expand() to a size a dimension of more than 1 cannot take."""

import torch

FIXES = {
    "workarounds.0": "singleton",
}


def variant_expand_wrong_dim(fix=None):
    x = torch.randn(2, 3)
    out = x.unsqueeze(-1).expand(2, 3, 4) if fix == "singleton" else x.expand(2, 4)
    assert out.shape[0] == 2


def variant_mask_over_channels(fix=None):
    """A per-pixel mask [N, H, W] expanded to [N, C, H, W] without the channel dimension."""
    mask = torch.ones(2, 8, 8)
    out = mask.unsqueeze(1).expand(2, 3, 8, 8) if fix == "singleton" else mask.expand(2, 3, 8, 8)
    assert out.shape == (2, 3, 8, 8)


if __name__ == "__main__":
    variant_expand_wrong_dim()
