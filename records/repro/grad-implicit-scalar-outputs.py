"""pytorch/grad-implicit-scalar-outputs: backward() with no argument on a tensor of many elements."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "reduce",
    "workarounds.1": "pass_gradient",
}


def _backward(out, fix):
    if fix == "reduce":
        out.mean().backward()
    elif fix == "pass_gradient":
        out.backward(torch.ones_like(out))
    else:
        out.backward()


def variant_unreduced_loss(fix=None):
    """A loss built with reduction='none' (one value per sample)."""
    model = nn.Linear(3, 1)
    loss = nn.MSELoss(reduction="none")(model(torch.randn(4, 3)), torch.zeros(4, 1))
    _backward(loss, fix)


def variant_model_output(fix=None):
    """backward() called on the model's output instead of on a loss."""
    model = nn.Linear(3, 2)
    _backward(model(torch.randn(4, 3)), fix)


def variant_autograd_grad(fix=None):
    """torch.autograd.grad of a vector output without grad_outputs."""
    x = torch.randn(3, requires_grad=True)
    y = x * x
    if fix == "reduce":
        torch.autograd.grad(y.sum(), x)
    elif fix == "pass_gradient":
        torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y))
    else:
        torch.autograd.grad(y, x)


if __name__ == "__main__":
    variant_unreduced_loss()
