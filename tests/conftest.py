"""Fixtures shared across the test modules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from errknow_ls.cli import main


@pytest.fixture
def run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    """``errknow-ls check ARGS`` in ``tmp_path``: exit code, stdout, stderr."""
    monkeypatch.chdir(tmp_path)

    def check(*args: str) -> tuple[int, str, str]:
        code = main(["check", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return check
