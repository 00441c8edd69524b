"""pytorch/dataloader-worker-killed-by-signal: the DataLoader's SIGCHLD handler reports a worker
killed by a signal (Killed: usually the OOM killer; Bus error: shared memory full)."""

import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset

FIXES = {
    "workarounds.0": "num_workers_0",
}


class _KilledInWorker(Dataset):
    def __init__(self, sig):
        self.sig = sig
        self.main = os.getpid()

    def __len__(self):
        return 4

    def __getitem__(self, index):
        if os.getpid() != self.main:
            os.kill(os.getpid(), self.sig)
        return torch.ones(2)


def _iterate(sig, fix):
    workers = 0 if fix == "num_workers_0" else 1
    for _ in DataLoader(_KilledInWorker(sig), batch_size=2, num_workers=workers):
        pass


def variant_killed(fix=None):
    """SIGKILL, as the kernel's OOM killer sends it."""
    _iterate(signal.SIGKILL, fix)


def variant_bus_error(fix=None):
    """SIGBUS, as a worker gets it when /dev/shm is too small for the batches it shares."""
    _iterate(signal.SIGBUS, fix)


if __name__ == "__main__":
    variant_killed()
