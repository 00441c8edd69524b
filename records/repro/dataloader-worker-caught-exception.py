"""pytorch/dataloader-worker-caught-exception: an error inside Dataset.__getitem__ (or collate_fn)
in a worker process, re-raised in the main process with the worker's traceback as text."""

import torch
from torch.utils.data import DataLoader, Dataset

FIXES = {
    "workarounds.0": "num_workers_0",
}


class _Missing(Dataset):
    def __init__(self):
        self.files = {0: "a.png", 1: "b.png"}

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return torch.tensor(len(self.files[index]))


class _BadValue(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return torch.tensor(float("1.5" if index < 2 else "n/a"))


def _iterate(dataset, fix):
    """With num_workers=0 the same error comes up plainly, with the dataset's own line on top."""
    workers = 0 if fix == "num_workers_0" else 1
    try:
        for _ in DataLoader(dataset, batch_size=2, num_workers=workers):
            pass
    except (KeyError, ValueError):
        if fix != "num_workers_0":
            raise


def variant_key_error(fix=None):
    _iterate(_Missing(), fix)


def variant_value_error(fix=None):
    _iterate(_BadValue(), fix)


if __name__ == "__main__":
    variant_key_error()
