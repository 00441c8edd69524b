"""pytorch/dataloader-worker-exited-unexpectedly: a DataLoader worker process died without a Python
error (killed by the kernel's OOM killer, a segfault in a C extension, a full /dev/shm)."""

import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset

FIXES = {
    "workarounds.0": "num_workers_0",
}


class _DiesInWorker(Dataset):
    """A worker that ends without a Python error.

    A worker killed by a signal (SIGKILL from the OOM killer) is reported either way, racing: as
    "killed by signal" when the SIGCHLD handler sees it first (pytorch/dataloader-worker-killed-by-signal,
    which reproduces it), or as this record's message when the status check does. The variants here
    are the two deterministic ways to this message: a nonzero exit code, and a worker that exits with
    status 0, which only the status check notices.
    """

    def __init__(self, how):
        self.how = how
        self.main = os.getpid()

    def __len__(self):
        return 4

    def __getitem__(self, index):
        if os.getpid() != self.main:
            if self.how == "exit code":
                os._exit(1)  # as a C library calling exit(1) makes it
            sys.exit()  # SystemExit is no Exception: the worker loop lets it end the process, status 0
        return torch.ones(2)


def _iterate(how, fix):
    workers = 0 if fix == "num_workers_0" else 2
    for _ in DataLoader(_DiesInWorker(how), batch_size=2, num_workers=workers):
        pass


def variant_worker_exits(fix=None):
    _iterate("exit code", fix)


def variant_worker_calls_sys_exit(fix=None):
    _iterate("sys.exit", fix)


if __name__ == "__main__":
    variant_worker_calls_sys_exit()
