"""pytorch/zero-dim-tensor-index: x[0] on a 0-dim tensor (a loss, a sum), written for torch 0.3,
where such values were 1-element tensors."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "item",
}


def _loss():
    model = nn.Linear(3, 1)
    return nn.functional.mse_loss(model(torch.ones(4, 3)), torch.zeros(4, 1))


def variant_loss_data_zero(fix=None):
    """running_loss += loss.data[0], the 0.3 idiom for reading a loss."""
    loss = _loss()
    running = loss.item() if fix == "item" else loss.data[0]
    assert isinstance(running, float)


def variant_correct_count(fix=None):
    """correct += (pred == target).sum()[0] for an accuracy."""
    pred, target = torch.tensor([1, 0, 1]), torch.tensor([1, 1, 1])
    matches = (pred == target).sum()
    correct = matches.item() if fix == "item" else matches[0]
    assert correct == 2


def variant_scalar_from_norm(fix=None):
    """A gradient norm read with [0] for logging."""
    norm = torch.ones(3).norm()
    value = norm.item() if fix == "item" else norm[0]
    assert abs(float(value) - 3**0.5) < 1e-6


if __name__ == "__main__":
    variant_loss_data_zero()
