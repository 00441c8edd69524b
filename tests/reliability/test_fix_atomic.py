"""``kill -9`` during ``errknow-ls check --fix``: every file is wholly old or wholly new, and the
temporary files a killed run leaves are removed by the next run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from errknow_ls.runner.sourcefile import TEMP_TAG
from tests.reliability.campaign import size
from tests.support import REPO

FIXES = REPO / "tests" / "analysis" / "fixes"
CLI = str(Path(sys.executable).parent / "errknow-ls")
COPIES = 4
"""Each golden pair's input, this many times: over the pool threshold, so workers write too."""


def _originals() -> dict[str, bytes]:
    """File name -> bytes: every fix fixture's input, some with CRLF line endings, padded to a size
    where writing takes a while."""
    files = {}
    for copy in range(COPIES):
        for path in sorted(FIXES.glob("*.in.py")):
            data = path.read_bytes() + b"\n" + b"# padding\n" * 3_000
            if copy % 2:
                data = data.replace(b"\n", b"\r\n")
            files[f"{path.name.removesuffix('.in.py')}_{copy}.py"] = data
    return files


def _plant(tree: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (tree / name).write_bytes(data)


def _fix(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, "check", "--fix", "--exit-zero", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _temps(tree: Path) -> list[str]:
    return sorted(path.name for path in tree.iterdir() if TEMP_TAG in path.name)


def test_kill_9_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    originals = _originals()
    expected = tmp_path / "expected"
    expected.mkdir()
    _plant(expected, originals)
    done = _fix(expected)
    assert done.returncode == 0, done.stderr
    fixed = {name: (expected / name).read_bytes() for name in originals}
    assert sum(fixed[name] != originals[name] for name in originals) >= len(originals) // 2

    tree = tmp_path / "tree"
    tree.mkdir()
    rng = random.Random(8)
    outcomes = {"old": 0, "new": 0, "temps": 0}
    for _ in range(size(ci=3, long=200)):
        _plant(tree, originals)
        # Its own session, so that the whole run (the pool's workers too) dies at once, as on a crash.
        run = subprocess.Popen(
            [CLI, "check", "--fix", "--exit-zero", "."],
            cwd=tree,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            run.wait(timeout=rng.uniform(0.3, 2.5))  # the random moment of the crash
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
        for name in originals:
            data = (tree / name).read_bytes()
            assert data in (originals[name], fixed[name]), (
                f"{name} is neither the original nor the fixed file"
            )
            outcomes["old" if data == originals[name] and data != fixed[name] else "new"] += 1
        outcomes["temps"] += len(_temps(tree))
        finished = _fix(tree)
        assert finished.returncode == 0, finished.stderr
        assert {name: (tree / name).read_bytes() for name in originals} == fixed
        assert _temps(tree) == []
    print(f"after the kills: {outcomes}")
    assert outcomes["old"] and outcomes["new"]


def test_the_next_run_removes_a_killed_runs_temporary_files(tmp_path: Path) -> None:
    source = (FIXES / "ek002_loss_before_loop.in.py").read_bytes()
    (tmp_path / "a.py").write_bytes(source)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    stale = tmp_path / f".a.py.{TEMP_TAG}-{int(dead.stdout)}-x1y2z3.tmp"
    stale.write_bytes(source[:10])
    live = tmp_path / f".a.py.{TEMP_TAG}-{os.getpid()}-a1b2c3.tmp"  # a run still writing: left alone
    live.write_bytes(source[:10])
    unrelated = tmp_path / ".a.py.swp.tmp"
    unrelated.write_bytes(b"editor")
    done = _fix(tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"{stale.name}: removed, a temporary file of an interrupted --fix run" in done.stderr
    assert (stale.exists(), live.exists(), unrelated.exists()) == (False, True, True)
    assert (tmp_path / "a.py").read_bytes() == (FIXES / "ek002_loss_before_loop.out.py").read_bytes()


def test_checking_without_fix_removes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes((FIXES / "ek001_backward_twice.in.py").read_bytes())
    stale = tmp_path / f".a.py.{TEMP_TAG}-999999999-x1y2z3.tmp"
    stale.write_bytes(b"partial")
    done = subprocess.run([CLI, "check", "."], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    assert stale.exists()
