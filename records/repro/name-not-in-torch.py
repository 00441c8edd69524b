"""pytorch/name-not-in-torch: a name the installed torch does not have (misspelt, or another release's)."""

import importlib

import torch

FIXES = {
    "workarounds.0": "right_name",
}


def variant_module_attribute_case(fix=None):
    """nn.linear for nn.Linear: attribute names are case-sensitive."""
    layer = torch.nn.Linear(3, 2) if fix == "right_name" else torch.nn.linear(3, 2)
    assert layer(torch.randn(1, 3)).shape == (1, 2)


def variant_tensor_attribute_typo(fix=None):
    """x.dtpye for x.dtype."""
    x = torch.randn(2)
    assert (x.dtype if fix == "right_name" else x.dtpye) == torch.float32


def variant_import_a_name_this_release_lacks(fix=None):
    """An import written for another release's module layout."""
    name = "lr_scheduler" if fix == "right_name" else "lr_schedulers"
    module = importlib.import_module("torch.optim")
    exec(f"from torch.optim import {name}", {})
    assert hasattr(module, "lr_scheduler")


if __name__ == "__main__":
    variant_module_attribute_case()
