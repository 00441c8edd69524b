"""pytorch/save-directory-missing: torch.save into a directory that does not exist."""

import contextlib
import os
import tempfile
from pathlib import Path

import torch

FIXES = {
    "workarounds.0": "makedirs",
}


def _save(save, obj, relative, fix):
    """Saves to a path relative to the working directory, as training scripts do."""
    with tempfile.TemporaryDirectory() as root, contextlib.chdir(root):
        target = Path(relative)
        if fix == "makedirs":
            os.makedirs(target.parent, exist_ok=True)
        save(obj, relative)
        assert target.exists()


def variant_checkpoint_dir_not_created(fix=None):
    _save(torch.save, {"step": 1}, "checkpoints/epoch_1.pt", fix)


def variant_scripted_model(fix=None):
    _save(torch.jit.save, torch.jit.script(torch.nn.Linear(2, 2)), "export/model.pt", fix)


if __name__ == "__main__":
    variant_checkpoint_dir_not_created()
