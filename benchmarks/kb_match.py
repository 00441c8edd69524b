"""How fast the knowledge base matches log lines, as ratios: run it, read it, nothing passes or fails.

    python benchmarks/kb_match.py [LINES]

Prints lines matched per second, and the slowest line's time as a share of the per-pattern timeout,
which says how far a real log is from the point where a record would be disabled.
"""

from __future__ import annotations

import sys
import time

from errknow_ls.kb import KnowledgeBase
from errknow_ls.kb.patterns import MATCH_TIMEOUT

SECOND_BACKWARD = (
    "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
    "a second time or if you need to access saved tensors after calling backward."
)


def synthetic_log(lines: int) -> list[str]:
    """Training-log chatter with the error on one line in a hundred."""
    return [
        SECOND_BACKWARD if i % 100 == 99 else f"epoch {i // 500} step {i} loss {1.0 / (i + 1):.6f} lr 3e-4"
        for i in range(lines)
    ]


def main(lines: int) -> None:
    started = time.perf_counter()
    kb = KnowledgeBase.load()
    load_seconds = time.perf_counter() - started
    slowest = matched = 0.0
    started = time.perf_counter()
    for line in synthetic_log(lines):
        before = time.perf_counter()
        matched += len(kb.match(line))
        slowest = max(slowest, time.perf_counter() - before)
    total = time.perf_counter() - started
    print(f"records loaded           {len(kb)} in {load_seconds * 1000:.1f} ms")
    print(f"lines per second         {lines / total:,.0f}")
    print(f"matched / error lines    {matched / max(1, lines // 100):.2f}")
    print(f"slowest line / timeout   {slowest / MATCH_TIMEOUT:.4f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
