"""pytorch/torch-function-argument-types: a torch function called with arguments of the wrong type
(a Python number where a tensor goes, a misspelt keyword, a list of lists)."""

import torch

FIXES = {
    "workarounds.0": "tensor_arguments",
}


def variant_python_number(fix=None):
    """torch.round on a Python int (a size computed in Python, not a tensor)."""
    crop = 227 * 0.5
    value = torch.round(torch.tensor(crop)) if fix == "tensor_arguments" else torch.round(int(crop))
    assert float(value) == 114


def variant_misspelt_keyword(fix=None):
    """.to(detype=...) for .to(dtype=...)."""
    x = torch.ones(2)
    half = x.to(dtype=torch.float16) if fix == "tensor_arguments" else x.to(detype=torch.float16)
    assert half.dtype == torch.float16


def variant_lists_not_tensors(fix=None):
    """torch.cat given Python lists collected in a loop instead of tensors."""
    rows = [[1.0, 2.0], [3.0]]
    parts = [torch.tensor(row) for row in rows] if fix == "tensor_arguments" else rows
    assert torch.cat(parts).shape == (3,)


if __name__ == "__main__":
    variant_python_number()
