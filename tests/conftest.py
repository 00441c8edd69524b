"""Fixtures shared across the test modules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling

from errknow_ls.cli import main

EDITORS = "tests/editors/"
"""The end-to-end runs of real editors: each drives its editor against timeouts, so they run one at
a time, on one worker, while the other workers run the rest."""


class _ByModule(LoadScopeScheduling):
    """pytest-xdist's scheduling by module (``make test`` runs ``-n auto``): a module's tests run on
    one worker, so a fixture made once per module is made once; the real editors' modules are one
    unit together (``EDITORS``)."""

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        return EDITORS if module.startswith(EDITORS) else module


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> _ByModule:
    return _ByModule(config, log)


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
