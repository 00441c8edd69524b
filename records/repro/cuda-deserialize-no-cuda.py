"""pytorch/cuda-deserialize-no-cuda: a checkpoint saved from GPU tensors loaded where CUDA is absent.

No GPU is needed: torch.save writes each storage's device as a string, and a GPU machine writes
"cuda:0"; here serialization's location_tag is made to write that string, so the file is the one a
GPU run would have written.
"""

import io

import torch
import torch.serialization

FIXES = {
    "workarounds.0": "map_location_cpu",
}


def _gpu_checkpoint(obj):
    original = torch.serialization.location_tag
    torch.serialization.location_tag = lambda storage: "cuda:0"
    try:
        buffer = io.BytesIO()
        torch.save(obj, buffer)
    finally:
        torch.serialization.location_tag = original
    buffer.seek(0)
    return buffer


def variant_state_dict(fix=None):
    buffer = _gpu_checkpoint({"w": torch.ones(3), "b": torch.zeros(1)})
    if fix == "map_location_cpu":
        torch.load(buffer, map_location=torch.device("cpu"))
    else:
        torch.load(buffer)


def variant_whole_tensor(fix=None):
    buffer = _gpu_checkpoint(torch.randn(2, 2))
    if fix == "map_location_cpu":
        torch.load(buffer, map_location="cpu")
    else:
        torch.load(buffer)


if __name__ == "__main__":
    variant_state_dict()
