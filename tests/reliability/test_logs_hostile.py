"""Hostile logs: binary garbage, ANSI soup, one 10 MB line, lines of prefixes, logs of hundreds of MB.

The scanner never raises, finds the same tracebacks however the input is chunked, and
``errknow-ls explain`` streams a file: its peak memory does not grow with the file's size.
"""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errknow_ls.tracebacks import Traceback, TracebackScanner, read_tracebacks
from tests.reliability.campaign import HANG_GUARD_SECONDS, LONG, examples, size

HEADER = b"Traceback (most recent call last):\n"
TRACEBACK = (
    HEADER + b'  File "/home/me/train.py", line 12, in <module>\n    loss.backward()\n'
    b"RuntimeError: Trying to backward through the graph a second time (or directly access saved "
    b"tensors after they have already been freed).\n"
)
PIECES = (
    HEADER,
    TRACEBACK,
    b'  File "a.py", line 1, in f\n',
    b"RuntimeError: boom\n",
    b"\x1b[31m",
    b"\x1b[0m",
    b"\x1b]8;;http://x\x07",
    b"\x1b[2K\r",
    b"\r",
    b"\n",
    b"[rank0]: ",
    b"0: ",
    b"2024-01-01 12:00:00 ERROR ",
    b"  | ",
    b"  +-+---- 1 ----\n",
    b"The above exception was the direct cause of the following exception:\n",
    b"\xff\xfe\x00",
    b"\xe2\x82",
    b"\x00",
    b"100%|####| 3/3\r",
)


def _scan(data: bytes, cuts: list[int]) -> list[Traceback]:
    scanner = TracebackScanner()
    found: list[Traceback] = []
    start = 0
    for cut in sorted(cuts):
        found += scanner.feed(data[start:cut])
        start = cut
    found += scanner.feed(data[start:])
    found += scanner.close()
    return sorted(found, key=lambda tb: (tb.start_line, tb.stream))


def _check(data: bytes, found: list[Traceback]) -> None:
    lines = data.count(b"\n") + 1
    for tb in found:
        assert 0 <= tb.start_line <= tb.message_line <= tb.end_line < lines


logs = st.lists(st.one_of(st.sampled_from(PIECES), st.binary(max_size=40)), max_size=60).map(b"".join)


@examples(ci=200, long=50_000)
@given(logs, st.lists(st.integers(0, 4000), max_size=6))
def test_garbage_and_ansi_soup_scan_the_same_however_chunked(data: bytes, cuts: list[int]) -> None:
    whole = _scan(data, [])
    _check(data, whole)
    assert _scan(data, [min(cut, len(data)) for cut in cuts]) == whole


def _timed(data: bytes) -> list[Traceback]:
    started = time.perf_counter()
    found = read_tracebacks(data)
    assert time.perf_counter() - started < HANG_GUARD_SECONDS
    return found


def test_a_10_mb_line_inside_a_traceback() -> None:
    found = _timed(
        HEADER + b'  File "a.py", line 1, in f\nRuntimeError: ' + b"x" * 10_000_000 + b"\n" + TRACEBACK
    )
    assert [tb.exception for tb in found] == ["RuntimeError", "RuntimeError"]


def test_a_10_mb_line_of_launcher_prefixes_is_linear() -> None:
    """Each prefix was sliced off the rest of the line: 1 MB took 6 s, 10 MB would take ten minutes."""
    found = _timed(HEADER + b"0: " * 3_500_000 + b"\n" + TRACEBACK)
    assert found[-1].message.startswith("Trying to backward")


def test_ansi_soup_around_a_traceback() -> None:
    soup = b"\x1b[" + b"1;" * 100_000 + b"\x1b]" * 100_000 + b"\x1bP" * 100_000 + b"\x1b" * 100_000
    found = _timed(soup + b"\n" + b"\x1b[31m" + TRACEBACK.replace(b"\n", b"\x1b[0m\n") + soup)
    assert [tb.message_line for tb in found] == [4]


# ----------------------------------------------------------------------------- memory, via the CLI

_PEAK = """
import resource, sys
from errknow_ls.cli import main
code = main(["explain", "--format", "json", sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, code)
"""


def _explain_peak_mb(path: Path) -> tuple[int, int]:
    """``errknow-ls explain`` on ``path`` in a fresh process: its peak RSS in MB, and its exit code."""
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(path)], capture_output=True, text=True, timeout=600, check=True
    )
    peak, code = done.stdout.split()[-2:]
    return int(peak), int(code)


def _write_log(path: Path, megabytes: int, encoding: str = "utf-8") -> Path:
    """A training log of ``megabytes``: progress lines, garbage, a long line, a traceback every 8 MB."""
    block = (
        b"epoch 1 step 10 loss 0.3\n" * 20_000
        + b"\x1b[32m100%|##########| 9/9 [00:01<00:00]\x1b[0m\r" * 2_000
        + b"\xff\x00\xfe garbage\n" * 5_000
        + b"y" * 1_000_000
        + b"\n"
    )
    block += b"z" * (8 * 1024 * 1024 - len(block) - len(TRACEBACK)) + b"\n"
    block = block[: 8 * 1024 * 1024 - len(TRACEBACK)] + TRACEBACK
    with path.open("wb") as out:
        if encoding == "utf-16":
            text = block.decode("utf-8", "replace")
            out.write(text.encode("utf-16"))
            chunk = text.encode("utf-16-le")
        else:
            chunk = block
        for _ in range(megabytes // 8):
            out.write(chunk)
    return path


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_explain_streams_a_log_in_bounded_memory(tmp_path: Path, encoding: str) -> None:
    small_mb, large_mb = (48, 200) if encoding == "utf-8" else (8, 32)
    small = _write_log(tmp_path / "small.log", small_mb, encoding)
    small_peak, small_code = _explain_peak_mb(small)
    small.unlink()
    large = _write_log(tmp_path / "large.log", large_mb, encoding)
    large_peak, large_code = _explain_peak_mb(large)
    assert (small_code, large_code) == (1, 1)
    # Four times the input, the same memory (give or take the output's size).
    assert large_peak < small_peak + 40, (small_peak, large_peak, large.stat().st_size // 2**20)


@pytest.mark.skipif(not LONG, reason="writes and scans 1 GB; ERRKNOW_FUZZ_LONG=1 runs it")
def test_explain_streams_a_1_gb_log(tmp_path: Path) -> None:
    peak, code = _explain_peak_mb(_write_log(tmp_path / "huge.log", 1024))
    print(f"1 GB log: peak RSS {peak} MB")
    assert code == 1
    assert peak < 200


def test_explain_survives_log_rotation_with_copytruncate(tmp_path: Path) -> None:
    """The log is copied and cut to nothing while ``explain`` reads it, and its writer goes on:
    never a crash (a mapped file's cut pages killed it with SIGBUS, saying nothing); what was read
    before the cut is explained, and the cut is reported."""
    log = tmp_path / "train.log"
    rng = random.Random(135)
    outcomes = {"cut while read": 0, "read whole": 0}
    for _ in range(size(ci=2, long=20)):
        _write_log(log, 200)
        run = subprocess.Popen(
            [sys.executable, "-m", "errknow_ls", "explain", "--format", "json", str(log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        with contextlib.suppress(subprocess.TimeoutExpired):
            run.wait(timeout=rng.uniform(0.2, 2.0))  # the moment logrotate runs
        with log.open("r+b") as out:  # copytruncate's cut (the copy changes nothing here)
            out.truncate(0)
            out.write(b"epoch 2 step 1 loss 0.2\n" + TRACEBACK)
        stdout, stderr = run.communicate(timeout=HANG_GUARD_SECONDS * 10)
        assert run.returncode in (0, 1), (run.returncode, stderr)
        found = json.loads(stdout)
        if b"the file shrank while it was read" in stderr:
            outcomes["cut while read"] += 1
            assert {item["exception"] for item in found} <= {"RuntimeError"}
        else:
            outcomes["read whole"] += 1
            assert stderr == b"", stderr
            assert len(found) in (1, 25), "every traceback of the log, before or after the cut"
    print(f"copytruncate during explain: {outcomes}")
