"""pytorch/dataloader-attribute-after-init: a DataLoader's dataset or batch size reassigned after it
was built."""

import torch
from torch.utils.data import DataLoader

FIXES = {
    "workarounds.0": "new_loader",
}


def variant_swap_dataset(fix=None):
    """The dataset replaced on an existing loader between phases (a new task, a filtered split)."""
    loader = DataLoader(list(range(4)), batch_size=2)
    task_two = list(range(10, 16))
    if fix == "new_loader":
        loader = DataLoader(task_two, batch_size=2)
    else:
        loader.dataset = task_two
    assert sum(len(batch) for batch in loader) == 6


def variant_grow_batch_size(fix=None):
    """The batch size raised on the loader for a later epoch."""
    loader = DataLoader(list(range(8)), batch_size=2)
    if fix == "new_loader":
        loader = DataLoader(loader.dataset, batch_size=4)
    else:
        loader.batch_size = 4
    assert len(loader) == 2


if __name__ == "__main__":
    variant_swap_dataset()
