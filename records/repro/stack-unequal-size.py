"""pytorch/stack-unequal-size: torch.stack (and so DataLoader's default collate) of unequal tensors."""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

FIXES = {
    "workarounds.0": "pad",
}


def _collate_pad(batch):
    return pad_sequence(batch, batch_first=True)


def variant_variable_length_sequences(fix=None):
    """A DataLoader over sequences of different lengths with the default collate_fn."""
    data = [torch.ones(n) for n in (3, 5, 4, 2)]
    loader = DataLoader(data, batch_size=2, collate_fn=_collate_pad if fix == "pad" else None)
    for _ in loader:
        pass


def variant_stack_list(fix=None):
    parts = [torch.ones(3), torch.ones(4)]
    if fix == "pad":
        return pad_sequence(parts, batch_first=True)
    return torch.stack(parts)


if __name__ == "__main__":
    variant_variable_length_sequences()
