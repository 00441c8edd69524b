"""pytorch/anomaly-nan-in-backward: detect_anomaly finds a NaN made by a backward function."""

import torch

FIXES = {
    "workarounds.0": "clamp_domain",
}


def _grad(fn, x, fix):
    with torch.autograd.detect_anomaly():
        x = x.clone().requires_grad_(True)
        inner = x.clamp(min=1e-6) if fix == "clamp_domain" else x
        fn(inner).sum().backward()
        assert torch.isfinite(x.grad).all()


def variant_sqrt_of_a_negative(fix=None):
    _grad(torch.sqrt, torch.tensor([-1.0, 4.0]), fix)


def variant_power_at_zero(fix=None):
    """x ** 0.5 at 0 has an infinite slope; times a zero it is NaN (a masked norm, a distance)."""
    _grad(lambda x: x**0.5 * torch.tensor([0.0, 1.0]), torch.tensor([0.0, 4.0]), fix)


def variant_log_of_zero(fix=None):
    """log(p) where p is exactly 0, multiplied by 0 (an entropy term written by hand)."""
    _grad(lambda p: p * torch.log(p), torch.tensor([0.0, 0.5]), fix)


if __name__ == "__main__":
    variant_sqrt_of_a_negative()
