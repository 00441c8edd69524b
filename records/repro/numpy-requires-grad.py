"""pytorch/numpy-requires-grad: .numpy() on a tensor that is part of a graph."""

import torch
from torch import nn

FIXES = {
    "dead_ends.0": "unset_requires_grad",
    "workarounds.0": "detach",
    "workarounds.1": "no_grad",
}


def variant_model_output(fix=None):
    """Converting predictions for metrics or plotting."""
    model = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    if fix == "no_grad":
        with torch.no_grad():
            out = model(x)
    else:
        out = model(x)
    if fix == "detach":
        return out.detach().cpu().numpy()
    if fix == "unset_requires_grad":
        out.requires_grad = False
    return out.numpy()


def variant_parameter(fix=None):
    """Saving a layer's weight as a NumPy array."""
    layer = nn.Linear(3, 2)
    if fix == "detach":
        return layer.weight.detach().numpy()
    if fix == "no_grad":
        with torch.no_grad():
            return layer.weight.numpy()
    if fix == "unset_requires_grad":
        layer.weight.requires_grad = False
        array = layer.weight.numpy()
        assert layer.weight.requires_grad, "the layer is frozen now: it no longer trains"
        return array
    return layer.weight.numpy()


if __name__ == "__main__":
    variant_model_output()
