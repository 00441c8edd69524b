"""The suppression comment: what silences a finding, and the edit that adds a code."""

from __future__ import annotations

import pytest

from errknow_ls.core.suppression import LineEdit, add_code, suppressed


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("loss.backward()", False),
        ("loss.backward()  # errknow: ignore", True),
        ("loss.backward()  # errknow: ignore[]", True),
        ("loss.backward()  # errknow: ignore[EK001]", True),
        ("loss.backward()  # ERRKNOW: Ignore[ek001]", False),  # codes are matched as written
        ("loss.backward()  # errknow: ignore[EK002, double-backward]", True),
        ("loss.backward()  # errknow: ignore[EK002]", False),
        ("loss.backward()  # noqa", True),
        ("loss.backward()  # noqa: EK001", True),
        ("loss.backward()  # noqa: E501", False),
    ],
)
def test_suppressed(line: str, expected: bool) -> None:
    assert suppressed(line, "EK001", "double-backward") is expected


@pytest.mark.parametrize(
    ("line", "after"),
    [
        ("loss.backward()", "loss.backward()  # errknow: ignore[EK001]"),
        ("x = '😋'  # errknow: ignore[EK002]", "x = '😋'  # errknow: ignore[EK002, EK001]"),
        ("y()  # errknow: ignore[ ]", "y()  # errknow: ignore[EK001]"),
    ],
)
def test_add_code_writes_what_suppressed_reads(line: str, after: str) -> None:
    edit = add_code(line, "EK001")
    assert isinstance(edit, LineEdit)
    assert line[: edit.start] + edit.content + line[edit.end :] == after
    assert not suppressed(line, "EK001", "double-backward")
    assert suppressed(after, "EK001", "double-backward")
