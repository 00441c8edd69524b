"""pytorch/optimizer-non-leaf: an optimizer given a tensor computed from another one."""

import torch

FIXES = {
    "workarounds.0": "leaf",
}


def variant_moved_after_requires_grad(fix=None):
    """torch.randn(..., requires_grad=True).to(device) or * scale: the result is not a leaf."""
    if fix == "leaf":
        w = (torch.randn(3) * 0.01).requires_grad_()
    else:
        w = torch.randn(3, requires_grad=True) * 0.01
    torch.optim.SGD([w], lr=0.1)


def variant_parameter_reassigned(fix=None):
    """A parameter replaced by an expression of itself before the optimizer is built."""
    weight = torch.nn.Parameter(torch.randn(2, 2))
    tied = torch.nn.Parameter(weight.detach().t().clone()) if fix == "leaf" else weight.t()
    torch.optim.Adam([tied], lr=1e-3)


if __name__ == "__main__":
    variant_moved_after_requires_grad()
