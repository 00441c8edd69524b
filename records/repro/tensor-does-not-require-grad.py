"""pytorch/tensor-does-not-require-grad: backward on a tensor no graph leads to."""

import torch
from torch import nn

FIXES = {
    "dead_ends.0": "requires_grad_on_loss",
    "workarounds.0": "keep_graph",
}


def variant_no_grad_forward(fix=None):
    """The forward pass ran under torch.no_grad() (left over from evaluation code)."""
    model = nn.Linear(3, 1)
    x = torch.randn(4, 3)
    if fix == "keep_graph":
        loss = model(x).pow(2).mean()
    else:
        with torch.no_grad():
            loss = model(x).pow(2).mean()
    if fix == "requires_grad_on_loss":
        loss.requires_grad_(True)
    loss.backward()
    assert model.weight.grad is not None, "the weights got no gradient"


def variant_detached_output(fix=None):
    """The output was detached (or went through .item()/numpy) before the loss."""
    model = nn.Linear(3, 1)
    out = model(torch.randn(4, 3))
    out = out if fix == "keep_graph" else out.detach()
    loss = out.pow(2).mean()
    if fix == "requires_grad_on_loss":
        loss.requires_grad_(True)
    loss.backward()
    assert model.weight.grad is not None, "the weights got no gradient"


def variant_frozen_parameters(fix=None):
    """Every parameter was frozen with requires_grad_(False) before training."""
    model = nn.Linear(3, 1)
    model.requires_grad_(fix == "keep_graph")
    loss = model(torch.randn(4, 3)).pow(2).mean()
    if fix == "requires_grad_on_loss":
        loss.requires_grad_(True)
    loss.backward()
    assert model.weight.grad is not None, "the weights got no gradient"


if __name__ == "__main__":
    variant_no_grad_forward()
