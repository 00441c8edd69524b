"""Emacs 28 + eglot 1.9 (Debian's emacs-nox and elpa-eglot), in batch, with editors/emacs/errknow.el."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.editors.support import check_clean
from tests.support import REPO

SNIPPET = REPO / "editors" / "emacs" / "errknow.el"
SCENARIO = Path(__file__).resolve().parent / "emacs" / "e2e.el"
PACKAGES = ["emacs-nox", "elpa-eglot"]


@pytest.fixture(scope="session")
def emacs() -> str:
    """Debian's Emacs with eglot, installed with apt-get when missing."""
    if not Path("/usr/share/emacs/site-lisp/elpa").is_dir() or shutil.which("emacs") is None:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            pytest.skip("emacs-nox and elpa-eglot are missing and apt-get cannot install them (needs root)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=True, timeout=600)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
            env=env,
            check=True,
            capture_output=True,
            timeout=900,
        )
    emacs = shutil.which("emacs")
    assert emacs is not None
    return emacs


def test_eglot_diagnostics_and_code_actions(emacs: str, project: Path) -> None:
    out = project.parent / "seen.json"
    result = subprocess.run(
        [emacs, "-Q", "--batch", "-l", str(SCENARIO)],
        cwd=project,
        env={
            **os.environ,
            "HOME": str(project.parent),
            "ERRKNOW_EMACS_SNIPPET": str(SNIPPET),
            "ERRKNOW_E2E_FILE": str(project / "warmup_probe.py"),
            "ERRKNOW_E2E_OUT": str(out),
        },
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    assert result.returncode == 0, f"emacs exited {result.returncode}: {seen.get('error')}\n{result.stderr}"

    assert seen["server"] == [str(project / ".venv" / "bin" / "errknow-ls"), "serve"]
    [diagnostic] = seen["diagnostics"]
    assert diagnostic["line"] == 18
    assert diagnostic["type"] == "eglot-error"
    assert "[EK002]" in diagnostic["text"]
    assert seen["actions"][0] == "Compute `features` inside the loop, on every iteration (safe)"  # preferred
    assert "Disable EK002 for this line" in seen["actions"]
    assert "for epoch in range(5):\n    features = backbone(inputs)\n" in seen["fixed"]
    assert (project / "warmup_probe.py").read_text(encoding="utf-8") == seen["fixed"]
    assert check_clean(project / "warmup_probe.py").returncode == 0
