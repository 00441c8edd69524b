"""The built wheel, installed in a fresh venv far from this checkout, still finds its records."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO, SHIPPED_IDS

pytestmark = pytest.mark.packaging


def _run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # No PYTHONPATH, so nothing from this checkout can leak into the installed package.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _checked(*command: str | Path, cwd: Path) -> str:
    done = _run(*command, cwd=cwd)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin directory of a fresh venv with only the wheel (and its dependencies) installed."""
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    _checked(sys.executable, "-m", "build", "--wheel", "--outdir", dist, REPO, cwd=root)
    [wheel] = dist.glob("errknow_ls-*.whl")
    _checked(sys.executable, "-m", "venv", root / "venv", cwd=root)
    bin_dir = root / "venv" / "bin"
    _checked(
        bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel, cwd=root
    )
    return bin_dir


def test_installed_records_are_inside_the_package(venv_bin: Path) -> None:
    where = _checked(
        venv_bin / "python",
        "-c",
        "from errknow_ls.kb import builtin_records_dir; print(builtin_records_dir())",
        cwd=venv_bin,
    )
    records = Path(where.strip())
    assert records.is_relative_to(venv_bin.parent)
    assert records.parts[-2:] == ("errknow_ls", "records")


def test_installed_cli_lists_the_records(venv_bin: Path) -> None:
    # The reproductions ship beside the records (records/repro/*.py); only the JSON files load.
    out = _checked(venv_bin / "errknow-ls", "records", "list", cwd=venv_bin)
    assert [line.split("\t")[0] for line in out.splitlines()] == SHIPPED_IDS


def test_installed_cli_lints_clean(venv_bin: Path) -> None:
    done = _run(venv_bin / "errknow-ls", "records", "lint", cwd=venv_bin)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "all records clean\n")
