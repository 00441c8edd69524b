"""pytorch/checkpoint-not-readable: torch.load on a file that is not a whole torch checkpoint (cut
short, missing a tensor's data, or not a checkpoint at all)."""

import io
import zipfile

import torch

FIXES = {
    "workarounds.0": "complete_file",
    "dead_ends.0": "map_location_cpu",
}


def _checkpoint():
    buffer = io.BytesIO()
    torch.save({"weight": torch.arange(64.0)}, buffer)
    return buffer.getvalue()


def _load(data, fix, weights_only=True):
    if fix == "complete_file":
        data = _checkpoint()
    kwargs = {"map_location": "cpu"} if fix == "map_location_cpu" else {}
    state = torch.load(io.BytesIO(data), weights_only=weights_only, **kwargs)
    assert torch.equal(state["weight"], torch.arange(64.0))


def variant_download_cut_short(fix=None):
    """A download or copy that stopped halfway: the zip's central directory at the end is missing."""
    whole = _checkpoint()
    _load(whole[: len(whole) // 2], fix)


def variant_tensor_data_missing(fix=None):
    """An archive whose tensor data entry is gone (an interrupted save, a repacked archive)."""
    source = zipfile.ZipFile(io.BytesIO(_checkpoint()))
    repacked = io.BytesIO()
    with zipfile.ZipFile(repacked, "w") as target:
        for name in source.namelist():
            if "/data/" not in name:
                target.writestr(name, source.read(name))
    _load(repacked.getvalue(), fix)


def variant_git_lfs_pointer(fix=None):
    """A clone without git-lfs: the .pth file is the LFS pointer text, loaded as torch < 2.6 did."""
    pointer = b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 1048576\n"
    _load(pointer, fix, weights_only=False)


if __name__ == "__main__":
    variant_download_cut_short()
