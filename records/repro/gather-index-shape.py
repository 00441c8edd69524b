"""pytorch/gather-index-shape: gather/scatter with an index larger than its input outside dim."""

import torch

FIXES = {
    "workarounds.0": "index_shape",
}


def variant_q_values_by_action(fix=None):
    """q.gather(1, actions) with actions [N] not [N, 1], broadcast to the wrong batch."""
    q = torch.randn(32, 5)
    actions = torch.randint(0, 5, (32,))
    index = actions.unsqueeze(1) if fix == "index_shape" else actions.unsqueeze(0).expand(128, 32)
    assert q.gather(1, index).shape == (32, 1)


def variant_scatter_labels(fix=None):
    """One-hot by scatter_ with a label tensor from a larger batch."""
    labels = torch.randint(0, 10, (64,))
    one_hot = torch.zeros(16, 10)
    index = labels[:16].unsqueeze(1) if fix == "index_shape" else labels.view(-1, 1).expand(64, 2)
    one_hot.scatter_(1, index, 1.0)


if __name__ == "__main__":
    variant_q_values_by_action()
