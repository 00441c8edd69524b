"""pytorch/weights-only-load-failed: torch.load (weights_only=True since 2.6) meets a pickled class."""

import argparse
import io

import numpy as np
import torch

FIXES = {
    "workarounds.0": "allowlist",
    "workarounds.1": "weights_only_false",
    "workarounds.2": "save_plain_data",
}


def _round_trip(payload, plain, allowed, fix):
    buffer = io.BytesIO()
    torch.save(plain if fix == "save_plain_data" else payload, buffer)
    buffer.seek(0)
    if fix == "weights_only_false":
        return torch.load(buffer, weights_only=False)
    if fix == "allowlist":
        with torch.serialization.safe_globals(allowed):
            return torch.load(buffer)
    return torch.load(buffer)


def variant_argparse_namespace(fix=None):
    """A checkpoint that also saved the run's argparse.Namespace."""
    args = argparse.Namespace(lr=0.1, epochs=3)
    payload = {"model": {"w": torch.ones(2)}, "args": args}
    plain = {"model": {"w": torch.ones(2)}, "args": vars(args)}
    _round_trip(payload, plain, [argparse.Namespace], fix)


def variant_numpy_scalar(fix=None):
    """A checkpoint holding a NumPy scalar (a best metric kept as np.float64)."""
    best = np.float64(0.93)
    payload = {"w": torch.ones(2), "best": best}
    plain = {"w": torch.ones(2), "best": float(best)}
    _round_trip(payload, plain, [np._core.multiarray.scalar, np.dtype, np.dtypes.Float64DType], fix)


if __name__ == "__main__":
    variant_argparse_namespace()
