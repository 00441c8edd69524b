"""``.gitignore`` in file discovery, with git itself as the reference: what ``discover`` finds below
a directory is what ``git ls-files --others --exclude-standard`` lists there (checked suffixes
only); nested files, negations, directory patterns and anchored patterns included."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from errknow_ls.project import Excluder, Gitignores, discover

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

TREE = {
    ".gitignore": "generated/\n*_pb2.py\nscratch*.py\n/top_only.py\nnotes/*.ipynb\n!notes/keep.ipynb\n",
    "pkg/.gitignore": "!scratch_keep.py\nlocal.py\n# a comment\n",
    "pkg/a.py": "",
    "pkg/scratch1.py": "",
    "pkg/scratch_keep.py": "",
    "pkg/local.py": "",
    "pkg/model_pb2.py": "",
    "pkg/top_only.py": "",
    "pkg/deep/.gitignore": "*.py\n!wanted.py\n",
    "pkg/deep/wanted.py": "",
    "pkg/deep/unwanted.py": "",
    "pkg/deep/local.py": "",
    "generated/x.py": "",
    "generated/.gitignore": "!x.py\n",
    "sub/generated/y.py": "",
    "top_only.py": "",
    "notes/a.ipynb": "",
    "notes/keep.ipynb": "",
    "main.py": "",
}


def repository(root: Path) -> Path:
    for name, text in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=root, env=env, check=True)
    # Below every .gitignore: the root's `!notes/keep.ipynb` still re-includes that one.
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("*.ipynb\n/main.py\n", encoding="utf-8")
    return root


def git_lists(root: Path, below: str = ".") -> list[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", below],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return sorted(line for line in done.stdout.splitlines() if line.endswith((".py", ".ipynb")))


def found(root: Path, paths: list[str], **options: bool) -> list[str]:
    result = discover([root / p for p in paths], Excluder(root=root), **options)
    assert result.errors == []
    return sorted(file.relative_to(root).as_posix() for file in result.files)


def test_discovery_skips_what_git_ignores(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    expected = git_lists(root)
    assert "pkg/scratch_keep.py" in expected  # the nested negation re-includes it
    assert "pkg/deep/wanted.py" in expected
    assert "generated/x.py" not in expected  # no re-including below an ignored directory
    assert "notes/keep.ipynb" in expected
    assert "main.py" not in expected  # .git/info/exclude
    assert found(root, ["."]) == expected


def test_a_walk_below_the_repository_root_reads_the_gitignore_files_above(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    result = discover([root / "pkg"], Excluder())  # no project root: git's repository root bounds it
    assert sorted(f.relative_to(root).as_posix() for f in result.files) == git_lists(root, "pkg")


def test_files_named_are_checked_even_when_ignored(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    assert found(root, ["pkg/local.py", "generated/x.py"]) == ["generated/x.py", "pkg/local.py"]


def test_respect_gitignore_false_finds_everything(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    expected = sorted(name for name in TREE if name.endswith((".py", ".ipynb")))
    assert found(root, ["."], respect_gitignore=False) == expected


def test_outside_a_repository_the_walked_directory_bounds_the_gitignore_files(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.py\n", encoding="utf-8")  # above the walk: not read
    top = tmp_path / "work"
    (top / "pkg").mkdir(parents=True)
    (top / ".gitignore").write_text("skipped.py\n", encoding="utf-8")
    for name in ("kept.py", "skipped.py", "pkg/skipped.py"):
        (top / name).write_text("", encoding="utf-8")
    gitignores = Gitignores(top)
    assert gitignores.boundary == top
    assert sorted(f.relative_to(top).as_posix() for f in discover([top], Excluder()).files) == ["kept.py"]
