"""pytorch/optimizer-empty-parameter-list: an optimizer built from no parameters."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "register_parameters",
}


def variant_plain_list_of_layers(fix=None):
    """Layers kept in a Python list are not registered as the module's submodules."""

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            layers = [nn.Linear(2, 2), nn.Linear(2, 1)]
            self.layers = nn.ModuleList(layers) if fix == "register_parameters" else layers

    torch.optim.SGD(Net().parameters(), lr=0.1)


def variant_generator_used_twice(fix=None):
    """model.parameters() is a generator: a second pass over it is empty."""
    model = nn.Linear(2, 1)
    params = list(model.parameters()) if fix == "register_parameters" else model.parameters()
    count = sum(p.numel() for p in params)
    torch.optim.Adam(params, lr=1e-3)
    return count


def variant_everything_frozen(fix=None):
    """Filtering on requires_grad after freezing every layer."""
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    model.requires_grad_(False)
    if fix == "register_parameters":
        model[-1].requires_grad_(True)
    torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)


if __name__ == "__main__":
    variant_plain_list_of_layers()
