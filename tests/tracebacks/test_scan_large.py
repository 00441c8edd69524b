"""Long stretches of a log are searched on a helper thread while their newlines are counted: the
line numbers must be the same as line by line, wherever the tracebacks fall and however the input
is cut into chunks."""

from __future__ import annotations

import os
import random
import signal

import pytest

from errknow_ls.tracebacks import TracebackScanner
from errknow_ls.tracebacks.scanner import _BESIDE

TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/job/train.py", line 7, in <module>',
    "    loss.backward()",
    "RuntimeError: Trying to backward through the graph a second time",
]


def _log(lines: int, at: list[int], escapes: bool) -> tuple[bytes, list[int]]:
    """``lines`` lines of progress output with a traceback starting at each line of ``at``; the
    message lines the scanner must report."""
    rng = random.Random(lines + len(at))
    out: list[str] = []
    messages = []
    for i in range(lines):
        if i in at:
            messages.append(len(out) + 3)
            out += [("\x1b[31m" + t + "\x1b[0m") if escapes else t for t in TRACEBACK]
        out.append(f"\r 10%|#   | {i}/{lines} " + "=" * rng.randrange(200) + f" loss {rng.random():.4f}")
    return ("\n".join(out) + "\n").encode(), messages


def _scan(data: bytes, chunk: int) -> list[int]:
    scanner = TracebackScanner()
    found = []
    for start in range(0, len(data), chunk):
        found += scanner.feed(data[start : start + chunk])
    found += scanner.close()
    return sorted(tb.message_line for tb in found)


@pytest.mark.parametrize(
    "at",
    [[], [0], [5], [9_000], [19_999], [3, 4_000, 4_010, 15_000], list(range(100, 20_000, 997))],
)
@pytest.mark.parametrize("escapes", [False, True])
def test_line_numbers_wherever_the_tracebacks_fall(at: list[int], escapes: bool) -> None:
    data, messages = _log(20_000, at, escapes)
    assert len(data) > 2 * _BESIDE
    for chunk in (len(data), _BESIDE + 12_345, 3 * _BESIDE):
        assert _scan(data, chunk) == messages, chunk


def test_a_forked_child_scans_too() -> None:
    data, messages = _log(20_000, [7_777], False)
    assert _scan(data, len(data)) == messages  # the helper thread exists in this process now
    child = os.fork()
    if child == 0:  # the child has no helper thread: it must make its own, not wait forever
        signal.alarm(30)
        os._exit(0 if _scan(data, len(data)) == messages else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
