"""pytorch/only-float-requires-grad: requires_grad on an integer (or bool) tensor."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "float_dtype",
}


def variant_tensor_of_ints(fix=None):
    """torch.tensor([1, 2, 3]) is int64: a learnable tensor needs a float dtype."""
    dtype = torch.float32 if fix == "float_dtype" else None
    torch.tensor([1, 2, 3], dtype=dtype, requires_grad=True)


def variant_parameter_from_arange(fix=None):
    values = torch.arange(4)
    nn.Parameter(values.float() if fix == "float_dtype" else values)


def variant_index_tensor(fix=None):
    """Asking for gradients of token ids (integers) instead of their embeddings."""
    ids = torch.tensor([[1, 4, 2]])
    embedding = nn.Embedding(10, 3)
    if fix == "float_dtype":
        embedded = embedding(ids)
        embedded.retain_grad()
        embedded.sum().backward()
    else:
        ids.requires_grad_(True)


if __name__ == "__main__":
    variant_tensor_of_ints()
