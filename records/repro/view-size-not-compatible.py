"""pytorch/view-size-not-compatible: .view() on a tensor whose memory is not laid out for it."""

import torch

FIXES = {
    "workarounds.0": "reshape",
    "workarounds.1": "contiguous",
}


def _view(t, shape, fix):
    if fix == "reshape":
        return t.reshape(shape)
    if fix == "contiguous":
        return t.contiguous().view(shape)
    return t.view(shape)


def variant_after_transpose(fix=None):
    x = torch.randn(4, 6).t()
    return _view(x, (-1,), fix)


def variant_after_permute(fix=None):
    """Merging heads back after permute in multi-head attention."""
    x = torch.randn(2, 3, 4, 5).permute(0, 2, 1, 3)
    return _view(x, (2, 4, 15), fix)


def variant_expanded(fix=None):
    """Flattening a tensor made by expand(), whose repeated rows share memory."""
    x = torch.randn(3, 1).expand(3, 4)
    return _view(x, (12,), fix)


if __name__ == "__main__":
    variant_after_transpose()
