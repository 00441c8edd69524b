"""How a long-running process of ours tunes Python's cyclic garbage collector, in one place.

A check makes and drops millions of small objects (syntax trees, abstract values, states) while
the process keeps large, long-lived ones (the imported code, the parsed modules and chunks its
memos hold). With the collector's defaults, a young-generation collection runs every 700
allocations and the older ones walk every memo again and again: measured on the real-code corpus
(`benchmarks/check_real.py`), 18 % of a cold check's time went to collections. What exists when
the process is ready is moved out of the collector's sight, and collections run less often.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000
"""Allocations (less deallocations) between two collections of the youngest generation."""
OLDER_THRESHOLDS = (20, 20)
"""Collections of one generation between two of the next."""

_tuned = False


def collect_rarely() -> None:
    """Freeze what the process holds now and space the collections out; once per process."""
    global _tuned  # noqa: PLW0603 (one switch per process)
    if _tuned:
        return
    _tuned = True
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
