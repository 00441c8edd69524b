"""pytorch/pickle-local-object: pickling (torch.save of a whole model) something defined inside a function."""

import io

import torch
from torch import nn

FIXES = {
    "workarounds.0": "state_dict",
}


def _save(model, fix):
    torch.save(model.state_dict() if fix == "state_dict" else model, io.BytesIO())


def variant_model_class_defined_in_a_function(fix=None):
    class LocalHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)

    _save(LocalHead(), fix)


def variant_lambda_attribute(fix=None):
    """A module that keeps a lambda (an activation chosen at build time)."""
    model = nn.Linear(2, 2)
    model.activation = lambda x: x.clamp(min=0)
    _save(model, fix)


if __name__ == "__main__":
    variant_model_class_defined_in_a_function()
