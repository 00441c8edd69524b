"""The VS Code extension's bundle (editors/vscode/scripts/bundle.py) for a platform other than this
one: one folder per Python version, each holding that platform's compiled dependencies, and a
manifest naming them; and for this machine, a bundle whose server starts only on its own version."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO

pytestmark = pytest.mark.packaging
BUNDLE = REPO / "editors" / "vscode" / "scripts" / "bundle.py"


def bundle(out: Path, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(BUNDLE), "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    manifest: dict[str, object] = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    return manifest


def test_a_windows_bundle_holds_windows_binaries_for_each_python(tmp_path: Path) -> None:
    manifest = bundle(tmp_path / "bundled", "--target", "win32-x64", "--python", "3.13", "--python", "3.12")
    assert manifest == {"pythons": ["3.12", "3.13"], "platform": "win32-x64"}
    for folder, tag in (("cp312", "cp312-win_amd64"), ("cp313", "cp313-win_amd64")):
        libs = tmp_path / "bundled" / "libs" / folder
        assert (libs / "errknow_ls" / "cli.py").is_file()
        compiled = {path.name for path in libs.rglob("*.pyd")}
        assert any(name.startswith("_pydantic_core") and tag in name for name in compiled), sorted(compiled)
        assert not list(libs.rglob("*.so")), "a Linux binary in a Windows bundle"


def test_the_bundled_server_runs_on_its_own_python_and_names_the_others(tmp_path: Path) -> None:
    manifest = bundle(tmp_path / "bundled")
    version = "{}.{}".format(*sys.version_info[:2])
    assert manifest["pythons"] == [version]
    serve = tmp_path / "bundled" / "tool" / "serve.py"
    helped = subprocess.run(
        [sys.executable, "-I", str(serve), "--help"], capture_output=True, text=True, check=False
    )
    assert helped.returncode == 0, helped.stderr[-2000:]
    assert "usage" in helped.stdout
    (tmp_path / "bundled" / "libs" / f"cp{version.replace('.', '')}").rename(tmp_path / "elsewhere")
    refused = subprocess.run([sys.executable, "-I", str(serve)], capture_output=True, text=True, check=False)
    assert refused.returncode != 0
    assert f"no server for Python {version}" in refused.stderr
