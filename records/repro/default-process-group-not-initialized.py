"""pytorch/default-process-group-not-initialized: a torch.distributed call before init_process_group."""

import os
import tempfile

import torch
import torch.distributed as dist

FIXES = {
    "workarounds.0": "init_process_group",
    "workarounds.1": "guard_is_initialized",
}


def _run(call, fix):
    if fix == "guard_is_initialized":
        if dist.is_available() and dist.is_initialized():
            call()
        return
    if fix == "init_process_group":
        with tempfile.TemporaryDirectory() as tmp:
            dist.init_process_group("gloo", init_method=f"file://{os.path.join(tmp, 'store')}", rank=0, world_size=1)
            try:
                call()
            finally:
                dist.destroy_process_group()
        return
    call()


def variant_get_rank(fix=None):
    """Code written for torchrun, started with plain `python train.py`."""
    _run(dist.get_rank, fix)


def variant_all_reduce(fix=None):
    """Averaging a metric across ranks in a script run on one process."""
    _run(lambda: dist.all_reduce(torch.ones(2)), fix)


def variant_barrier(fix=None):
    _run(dist.barrier, fix)


if __name__ == "__main__":
    variant_get_rank()
