"""What the editor end-to-end tests share: the fixture project, expected texts, flags."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from errknow_ls.analysis.rules import why
from tests.support import REPO, SHIPPED_FILE, read_json

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "fixtures" / "project"
ARTIFACTS = REPO / "test-artifacts"
VENV_BIN = Path(sys.executable).parent
SERVER = VENV_BIN / "errknow-ls"
ROOT_CAUSE = str(read_json(SHIPPED_FILE)["root_cause"]).split(",")[0]
"""The opening of the shipped record's root cause, read from the record: explanations quote it."""
PATTERN_WHY = why("EK002").split(";")[0]
"""The opening of why the fixture's pattern (EK002) raises, read from the rule: its hover leads with it."""
SECOND_BACKWARD = (
    "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a "
    "second time or if you need to access saved tensors after calling backward."
)

ALL_SCENARIOS = os.environ.get("ERRKNOW_E2E_ALL") == "1"
more_scenarios = pytest.mark.skipif(
    not ALL_SCENARIOS, reason="one scenario per editor runs by default; ERRKNOW_E2E_ALL=1 runs the rest"
)


def make_project(parent: Path) -> Path:
    """The fixture project in ``parent``, with its own ``.venv/bin/errknow-ls`` as a user has it."""
    root = parent / "project"
    shutil.copytree(PROJECT, root)
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "errknow-ls").symlink_to(SERVER)
    return root


def check_clean(path: Path) -> subprocess.CompletedProcess[str]:
    """``errknow-ls check`` on one file, as the CLI user runs it."""
    return subprocess.run(
        [str(SERVER), "check", str(path)], capture_output=True, text=True, timeout=60, check=False
    )


def run_logged(root: Path, log: str) -> None:
    """``python fit.py > log 2>&1`` in ``root``, as a user's earlier run left it: a real traceback."""
    with (root / log).open("w", encoding="utf-8") as out:
        subprocess.run(
            [str(VENV_BIN / "python"), "fit.py"],
            check=False,
            cwd=root,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=300,
        )
    assert "Trying to backward through the graph a second time" in (root / log).read_text(encoding="utf-8")
