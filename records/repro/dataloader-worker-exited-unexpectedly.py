"""pytorch/dataloader-worker-exited-unexpectedly: a DataLoader worker process died without a Python
error (killed by the kernel's OOM killer, a segfault in a C extension, a full /dev/shm)."""

import os
import signal

import torch
from torch.utils.data import DataLoader, Dataset

FIXES = {
    "workarounds.0": "num_workers_0",
}


class _DiesInWorker(Dataset):
    """Stands in for a worker the kernel kills: SIGKILL is what the OOM killer sends."""

    def __init__(self, sig):
        self.sig = sig  # None: the worker exits by itself, as a C library calling exit() makes it
        self.main = os.getpid()

    def __len__(self):
        return 4

    def __getitem__(self, index):
        if os.getpid() != self.main:
            if self.sig is None:
                os._exit(1)
            os.kill(os.getpid(), self.sig)
        return torch.ones(2)


def _iterate(sig, fix):
    workers = 0 if fix == "num_workers_0" else 2
    for _ in DataLoader(_DiesInWorker(sig), batch_size=2, num_workers=workers):
        pass


def variant_oom_killed(fix=None):
    _iterate(signal.SIGKILL, fix)


def variant_worker_exits(fix=None):
    _iterate(None, fix)


if __name__ == "__main__":
    variant_oom_killed()
