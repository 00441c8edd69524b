"""Sizes of the hostile-input campaigns: small enough for `make test`, or long with ERRKNOW_FUZZ_LONG=1."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

LONG = os.environ.get("ERRKNOW_FUZZ_LONG") == "1"
HANG_GUARD_SECONDS = 30.0
"""Not a performance bound (that is measured and reported): only what counts as hung."""


def examples(ci: int, long: int) -> settings:
    """Hypothesis settings for a campaign of ``ci`` examples, or ``long`` ones in a long campaign."""
    return settings(
        max_examples=long if LONG else ci,
        deadline=None,
        derandomize=not LONG,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )


def size(ci: int, long: int) -> int:
    return long if LONG else ci
