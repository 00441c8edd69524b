"""pytorch/state-dict-missing-unexpected-keys: a checkpoint's key names do not fit the model's."""

import torch
from torch import nn

FIXES = {
    "dead_ends.0": "strict_false",
    "workarounds.0": "strip_prefix",
}


def _model():
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))


def _load(model, state, fix):
    if fix == "strip_prefix":
        state = {key.removeprefix("module."): value for key, value in state.items()}
        state = {key.removeprefix("_orig_mod."): value for key, value in state.items()}
    strict = fix != "strict_false"
    model.load_state_dict(state, strict=strict)
    for key, value in model.state_dict().items():
        assert torch.equal(value, state.get(key, value * 0 + 12345)), f"{key} was not loaded"


def variant_data_parallel_prefix(fix=None):
    """Saved from a DataParallel / DistributedDataParallel wrapper: every key starts with module."""
    saved = nn.DataParallel(_model()).state_dict()
    _load(_model(), saved, fix)


def variant_compiled_prefix(fix=None):
    """Saved from torch.compile's wrapper: keys start with _orig_mod."""
    source = _model()
    saved = {f"_orig_mod.{key}": value for key, value in source.state_dict().items()}
    _load(_model(), saved, fix)


if __name__ == "__main__":
    variant_data_parallel_prefix()
