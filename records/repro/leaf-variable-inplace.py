"""pytorch/leaf-variable-inplace: an in-place op on a leaf that requires grad, outside no_grad."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "under_no_grad",
    "workarounds.1": "out_of_place",
}


def variant_manual_sgd(fix=None):
    """A hand-written SGD update on a parameter."""
    w = torch.randn(3, requires_grad=True)
    (w * w).sum().backward()
    if fix == "under_no_grad":
        with torch.no_grad():
            w -= 0.1 * w.grad
    elif fix == "out_of_place":
        w = (w - 0.1 * w.grad).detach().requires_grad_()
    elif fix == "modify_data":
        w.data -= 0.1 * w.grad
    else:
        w -= 0.1 * w.grad
    (w * w).sum().backward()


def variant_custom_init(fix=None):
    """Initialising a parameter in place without torch.no_grad() (or nn.init)."""
    layer = nn.Linear(3, 3)
    if fix == "under_no_grad":
        with torch.no_grad():
            layer.weight.mul_(0.5)
    elif fix == "out_of_place":
        layer.weight = nn.Parameter(layer.weight.detach() * 0.5)
    elif fix == "modify_data":
        layer.weight.data.mul_(0.5)
    else:
        layer.weight.mul_(0.5)
    layer(torch.randn(2, 3)).sum().backward()


def variant_clamp_input(fix=None):
    """Clamping an input that requires grad in place before using it."""
    x = torch.randn(4, requires_grad=True)
    if fix == "under_no_grad":
        with torch.no_grad():
            x.clamp_(-1, 1)
        y = x
    elif fix == "out_of_place":
        y = x.clamp(-1, 1)
    elif fix == "modify_data":
        x.data.clamp_(-1, 1)
        y = x
    else:
        y = x.clamp_(-1, 1)
    y.sum().backward()


if __name__ == "__main__":
    variant_manual_sgd()
