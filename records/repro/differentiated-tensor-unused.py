"""pytorch/differentiated-tensor-unused: autograd.grad asked for a tensor the output does not use."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "allow_unused",
    "workarounds.1": "only_used_inputs",
}


def variant_unused_input(fix=None):
    """Asking for the gradient of an input the output does not depend on."""
    x = torch.randn(3, requires_grad=True)
    y = torch.randn(3, requires_grad=True)
    out = (x * 2).sum()
    if fix == "allow_unused":
        grads = torch.autograd.grad(out, [x, y], allow_unused=True)
        assert grads[1] is None
    elif fix == "only_used_inputs":
        torch.autograd.grad(out, [x])
    else:
        torch.autograd.grad(out, [x, y])


def variant_unused_parameter(fix=None):
    """Gradients of all of a module's parameters when one branch was not used in this forward."""

    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 1)
            self.b = nn.Linear(3, 1)

        def forward(self, x):
            return self.a(x)

    model = TwoHeads()
    loss = model(torch.randn(2, 3)).sum()
    params = list(model.parameters())
    if fix == "allow_unused":
        torch.autograd.grad(loss, params, allow_unused=True)
    elif fix == "only_used_inputs":
        torch.autograd.grad(loss, list(model.a.parameters()))
    else:
        torch.autograd.grad(loss, params)


if __name__ == "__main__":
    variant_unused_input()
