"""``.gitignore`` in file discovery, with git itself as the reference: what ``discover`` finds below
a directory is what ``git ls-files --others --exclude-standard`` lists there (checked suffixes
only); nested files, negations, directory patterns and anchored patterns included, and
``.git/info/exclude`` and git's global excludes file (``core.excludesFile``) below them.

Git and the reader see the same home directory (the test's), no system configuration and no
``XDG_CONFIG_HOME``: the developer's own git configuration never leaks in."""

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


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The home directory of git and of the reader alike: the test's, beside the repository."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def git(root: Path, *arguments: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": os.environ["HOME"], "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *arguments], cwd=root, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def repository(root: Path) -> Path:
    for name, text in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q")
    # Below every .gitignore: the root's `!notes/keep.ipynb` still re-includes that one.
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("*.ipynb\n/main.py\n", encoding="utf-8")
    return root


def git_lists(root: Path, below: str = ".") -> list[str]:
    listed = git(root, "ls-files", "--others", "--exclude-standard", below)
    return sorted(line for line in listed.splitlines() if line.endswith((".py", ".ipynb")))


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


GLOBAL_EXCLUDES = (
    "a.py\n"  # nothing else decides it: ignored
    "!main.py\n"  # .git/info/exclude ignores /main.py, and decides first
    "!pkg/local.py\n"  # pkg/.gitignore ignores it, and decides first
    "*.ipynb\n"  # the root .gitignore's !notes/keep.ipynb decides first
    "deep/\n"
)


def test_the_global_excludes_file_decides_below_info_exclude(tmp_path: Path, home: Path) -> None:
    root = repository(tmp_path / "repo")
    (home / "global-ignore").write_text(GLOBAL_EXCLUDES, encoding="utf-8")
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/global-ignore\n", encoding="utf-8")
    expected = git_lists(root)
    assert "pkg/a.py" not in expected and "pkg/deep/wanted.py" not in expected
    assert "main.py" not in expected and "pkg/local.py" not in expected
    assert "notes/keep.ipynb" in expected
    assert found(root, ["."]) == expected
    assert sorted(f.relative_to(root).as_posix() for f in discover([root / "pkg"], Excluder()).files) == (
        git_lists(root, "pkg")
    )


def test_without_core_excludes_file_git_reads_the_xdg_default(tmp_path: Path, home: Path) -> None:
    root = repository(tmp_path / "repo")
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("a.py\n", encoding="utf-8")
    expected = git_lists(root)
    assert "pkg/a.py" not in expected
    assert found(root, ["."]) == expected


def test_the_repository_configuration_names_its_own_excludes_file(tmp_path: Path, home: Path) -> None:
    root = repository(tmp_path / "repo")
    (home / "global-ignore").write_text("a.py\n", encoding="utf-8")
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/global-ignore\n", encoding="utf-8")
    (home / "repo-ignore").write_text("top_only.py\n", encoding="utf-8")
    git(root, "config", "core.excludesFile", str(home / "repo-ignore"))
    expected = git_lists(root)
    assert "pkg/a.py" in expected and "pkg/top_only.py" not in expected
    assert found(root, ["."]) == expected


def test_a_worktree_reads_its_repository_info_exclude_and_configuration(tmp_path: Path, home: Path) -> None:
    """A worktree's ``.git`` is a file; ``info/exclude`` and the configuration are the repository's."""
    root = repository(tmp_path / "repo")
    (home / "global-ignore").write_text("a.py\n", encoding="utf-8")
    git(root, "config", "core.excludesFile", str(home / "global-ignore"))
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start")
    git(root, "worktree", "add", "-q", str(tmp_path / "worktree"))
    worktree = tmp_path / "worktree"
    for name, text in TREE.items():
        (worktree / name).parent.mkdir(parents=True, exist_ok=True)
        (worktree / name).write_text(text, encoding="utf-8")
    expected = git_lists(worktree)
    assert "pkg/a.py" not in expected and "main.py" not in expected
    assert found(worktree, ["."]) == expected


def test_a_git_configuration_that_cannot_be_read_leaves_the_rest(
    tmp_path: Path, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = repository(tmp_path / "repo")
    (home / ".gitconfig").write_text("[core\n\texcludesFile = ~/global-ignore\n", encoding="utf-8")
    assert "pkg/scratch1.py" not in found(root, ["."])  # the .gitignore files still count
    assert "global excludes file is not applied" in caplog.text
