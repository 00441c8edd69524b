"""pytorch/checkpoint-from-newer-torch: a checkpoint written in a format version newer than this torch
reads (the format version is what the message names, not the torch release)."""

import io
import zipfile

import torch

FIXES = {
    "workarounds.0": "readable_format",
}
NEWER_FORMAT = b"99\n"


def _saved(state, fix):
    buffer = io.BytesIO()
    torch.save(state, buffer)
    if fix == "readable_format":
        return buffer.getvalue()
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    rewritten = io.BytesIO()
    with zipfile.ZipFile(rewritten, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            target.writestr(name, NEWER_FORMAT if name.endswith("/version") else data)
    return rewritten.getvalue()


def variant_state_dict(fix=None):
    """A model's state_dict saved by a newer release, loaded here."""
    data = _saved({"weight": torch.ones(2, 2)}, fix)
    assert torch.load(io.BytesIO(data))["weight"].shape == (2, 2)


def variant_tensor(fix=None):
    """A tensor saved by a newer release (a dataset's cached features)."""
    data = _saved(torch.arange(4.0), fix)
    assert torch.load(io.BytesIO(data)).sum() == 6


if __name__ == "__main__":
    variant_state_dict()
