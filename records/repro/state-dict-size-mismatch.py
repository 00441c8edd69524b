"""pytorch/state-dict-size-mismatch: a checkpoint's tensor has another shape than the model's."""

import torch
from torch import nn

FIXES = {
    "dead_ends.0": "strict_false",
    "workarounds.0": "same_architecture",
    "workarounds.1": "drop_mismatched",
}


def _load(model, state, fix):
    if fix == "drop_mismatched":
        own = model.state_dict()
        state = {k: v for k, v in state.items() if k in own and v.shape == own[k].shape}
        model.load_state_dict(state, strict=False)
        return
    model.load_state_dict(state, strict=fix != "strict_false")


def variant_new_head(fix=None):
    """Fine-tuning: a pretrained 10-class classifier loaded into a 3-class model."""
    pretrained = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 10)).state_dict()
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 10 if fix == "same_architecture" else 3))
    _load(model, pretrained, fix)


def variant_vocab_grew(fix=None):
    """An embedding table saved with a smaller vocabulary."""
    saved = nn.Embedding(100, 8).state_dict()
    model = nn.Embedding(100 if fix == "same_architecture" else 120, 8)
    _load(model, saved, fix)


if __name__ == "__main__":
    variant_new_head()
