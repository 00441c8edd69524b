"""One line cleaned: prefixes become streams, log records and progress bars are recognised."""

from __future__ import annotations

import pytest

from errknow_ls.tracebacks.lines import clean_line


@pytest.mark.parametrize(
    ("raw", "text", "stream"),
    [
        ('[rank0]:   File "/p/x.py", line 3, in f', '  File "/p/x.py", line 3, in f', "rank0"),
        ("[default1]:[rank1]: RuntimeError: boom", "RuntimeError: boom", "default1:rank1"),
        ("[default0]:Traceback (most recent call last):", "Traceback (most recent call last):", "default0"),
        ("3: RuntimeError: boom", "RuntimeError: boom", "task3"),
        ("2024-01-01T12:00:00.1234567Z   File x", "  File x", ""),
        ("\x1b[31mRuntimeError\x1b[39m: \x1b[1mboom\x1b[0m\r", "RuntimeError: boom", ""),
        ("\x1b[2K\x1b[1A\x1b]8;;file:///p\x1b\\link\x1b]8;;\x1b\\", "link", ""),
    ],
)
def test_prefixes_and_codes_come_off(raw: str, text: str, stream: str) -> None:
    line = clean_line(7, raw)
    assert (line.index, line.text, line.stream) == (7, text, stream)


@pytest.mark.parametrize(
    "raw",
    [
        "2024-01-01 12:00:00,123 ERROR trainer: step 5 failed",
        "2024-01-01 12:00:00,123 - trainer - INFO - step 5",
        "[2024-01-01 12:00:00,123] [INFO] [launch.py:321:main] starting",
        "2024-01-01 12:00:00.123 | WARNING  | __main__:main:12 - slow",
        "ERROR:root:step 5 failed",
        "[ERROR] step 5 failed",
        "E1130 04:24:48.264000 16472 torch/distributed/elastic/multiprocessing/api.py:1002] failed",
    ],
)
def test_log_records(raw: str) -> None:
    assert clean_line(0, raw).record


@pytest.mark.parametrize(
    "raw",
    [
        "RuntimeError: an ERROR happened",
        "ValueError: bad value",
        "2024-01-01T12:00:00Z ValueError: error in step",
        '  File "/p/error_handler.py", line 3, in handle_error',
        "epoch 3: loss 0.2",
    ],
)
def test_not_log_records(raw: str) -> None:
    assert not clean_line(0, raw).record


def test_progress_bar_keeps_what_the_terminal_shows() -> None:
    bar = "\repoch 0:  10%|█         | 1/10\repoch 0:  20%|██        | 2/10"
    line = clean_line(0, bar)
    assert (line.text, line.progress) == ("epoch 0:  20%|██        | 2/10", True)
    line = clean_line(0, bar + "Traceback (most recent call last):")
    assert line.text.endswith("Traceback (most recent call last):")
    line = clean_line(0, "[rank1]: \r 50%|█████     | 5/10\r2024-01-01 12:00:00,123 ERROR x: failed")
    assert (line.stream, line.record, line.progress) == ("rank1", True, True)
