"""pytorch/inplace-modified-needed-for-grad: a tensor saved for backward was changed in place."""

import torch
from torch import nn

FIXES = {
    "dead_ends.0": "retain_graph",
    "workarounds.0": "out_of_place",
    "workarounds.1": "clone_before_inplace",
    "workarounds.2": "step_after_every_backward",
}


def variant_activation_modified(fix=None):
    """exp() saves its output; an in-place add on that output invalidates it."""
    x = torch.randn(3, requires_grad=True)
    y = x.exp()
    if fix == "out_of_place":
        y = y + 1
    elif fix == "clone_before_inplace":
        y = y.clone()
        y.add_(1)
    else:
        y.add_(1)
    y.sum().backward(retain_graph=fix == "retain_graph")


def variant_relu_inplace_after_sigmoid(fix=None):
    """nn.ReLU(inplace=True) on the output of a sigmoid, which sigmoid's backward needs."""
    relu = nn.ReLU(inplace=fix not in {"out_of_place", "clone_before_inplace"})
    x = torch.randn(4, requires_grad=True)
    h = torch.sigmoid(x)
    if fix == "clone_before_inplace":
        h = h.clone()
        relu = nn.ReLU(inplace=True)
    out = relu(h) * 2
    out.sum().backward(retain_graph=fix == "retain_graph")


def variant_optimizer_step_between(fix=None):
    """Two losses over one output, with an optimizer step (an in-place weight update) in between."""
    model = nn.Linear(3, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(2, 3, requires_grad=True)
    out = model(x)
    first, second = out.pow(2).mean(), out.abs().mean()
    opt.zero_grad()
    first.backward(retain_graph=True)
    if fix == "step_after_every_backward":
        second.backward()
        opt.step()
        return
    opt.step()
    second.backward(retain_graph=fix == "retain_graph")


def variant_slice_assignment(fix=None):
    """Writing into a slice of a tensor that a multiplication saved."""
    w = torch.randn(4, requires_grad=True)
    h = w * 2
    y = h * h
    if fix in {"out_of_place", "clone_before_inplace"}:
        h = torch.cat([h[:1] * 0, h[1:]])
    else:
        h[0] = 0
    (y.sum() + h.sum()).backward(retain_graph=fix == "retain_graph")


if __name__ == "__main__":
    variant_activation_modified()
