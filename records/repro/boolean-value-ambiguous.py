"""pytorch/boolean-value-ambiguous: a tensor of several values used where Python needs one bool."""

import torch

FIXES = {
    "workarounds.0": "reduce_with_any_all",
}


def variant_if_on_comparison(fix=None):
    loss = torch.tensor([0.5, 2.0])
    if (loss > 1.0).any() if fix == "reduce_with_any_all" else loss > 1.0:
        return "diverged"
    return "ok"


def variant_and_of_masks(fix=None):
    """Python's `and` between two masks instead of `&`."""
    x = torch.tensor([1.0, -2.0, 3.0])
    if fix == "reduce_with_any_all":
        return (x > 0) & (x < 2)
    return (x > 0) and (x < 2)


def variant_assert_allclose(fix=None):
    a, b = torch.ones(3), torch.ones(3)
    if fix == "reduce_with_any_all":
        assert (a == b).all()
    else:
        assert a == b


if __name__ == "__main__":
    variant_if_on_comparison()
