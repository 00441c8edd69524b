"""pytorch/inference-tensor-outside-inference-mode: a tensor created under torch.inference_mode()
updated in place, or used by autograd, after the block."""

import torch
from torch import nn

FIXES = {
    "workarounds.0": "no_grad",
}


def _mode(fix):
    return torch.no_grad() if fix == "no_grad" else torch.inference_mode()


def variant_running_total_updated(fix=None):
    """A buffer computed under inference_mode and updated in place later."""
    with _mode(fix):
        total = torch.zeros(3)
    total += torch.ones(3)
    assert total.sum() == 3


def variant_cached_features_in_training(fix=None):
    """Features cached under inference_mode, then fed to a layer that trains."""
    backbone, head = nn.Linear(4, 3), nn.Linear(3, 2)
    with _mode(fix):
        features = backbone(torch.ones(2, 4))
    head(features).sum().backward()
    assert head.weight.grad is not None


if __name__ == "__main__":
    variant_running_total_updated()
