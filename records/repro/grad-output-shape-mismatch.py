"""pytorch/grad-output-shape-mismatch: a gradient passed to backward or autograd.grad that has
another shape than the output it belongs to."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "ones_like",
}


def variant_gradient_penalty(fix=None):
    """WGAN-GP's penalty: grad_outputs=torch.ones(1) for a critic output that is 0-dim since 0.4."""
    critic = nn.Linear(3, 1)
    mixed = torch.ones(4, 3, requires_grad=True)
    score = critic(mixed).mean()
    grad_outputs = torch.ones_like(score) if fix == "ones_like" else torch.ones(1)
    (grads,) = torch.autograd.grad(score, mixed, grad_outputs=grad_outputs, create_graph=True)
    assert grads.shape == mixed.shape


def variant_backward_with_one(fix=None):
    """loss.backward(one) with one = torch.FloatTensor([1]), from code written for 0.3."""
    weight = torch.ones(3, requires_grad=True)
    loss = (weight * 2).sum()
    loss.backward(torch.ones_like(loss) if fix == "ones_like" else torch.FloatTensor([1]))
    assert weight.grad.tolist() == [2.0, 2.0, 2.0]


def variant_gradient_for_a_column(fix=None):
    """A (N, 1) output given a gradient of shape (N,)."""
    layer = nn.Linear(3, 1)
    out = layer(torch.ones(5, 3))
    out.backward(torch.ones_like(out) if fix == "ones_like" else torch.ones(5))
    assert layer.weight.grad is not None


if __name__ == "__main__":
    variant_gradient_penalty()
