"""The workspace scan reads ``.gitignore`` files as ``check`` does (git as the reference), and not at
all under ``respect-gitignore = false``."""

from __future__ import annotations

from pathlib import Path

from errknow_ls.lsp.checked_files import Scope
from errknow_ls.lsp.client_settings import Settings
from errknow_ls.project import Project
from tests.project.test_gitignore import TREE, git_lists, pytestmark, repository

__all__ = ["pytestmark"]


def scanned(root: Path) -> list[str]:
    scope = Scope([Project.load(root)], Settings())
    return sorted(path.relative_to(root).as_posix() for path in scope.files())


def test_the_workspace_scan_skips_what_git_ignores(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    assert scanned(root) == [name for name in git_lists(root) if name.endswith(".py")]
    assert Scope([Project.load(root)], Settings()).includes(root / "pkg" / "scratch_keep.py")
    assert not Scope([Project.load(root)], Settings()).includes(root / "pkg" / "scratch1.py")


def test_respect_gitignore_false_scans_everything(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    (root / "pyproject.toml").write_text("[tool.errknow]\nrespect-gitignore = false\n", encoding="utf-8")
    assert scanned(root) == sorted(name for name in TREE if name.endswith(".py"))
