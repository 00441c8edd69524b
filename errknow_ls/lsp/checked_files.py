"""Which files of the workspace are checked: every ``*.py`` of its folders, less what is excluded.

Excluded: what the CLI excludes (its defaults, or ``[tool.errknow] exclude``, and
``extend-exclude``), what ``.gitignore`` files ignore, and the editor's ``exclude`` patterns.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec
from pygls.uris import to_fs_path

from errknow_ls.lsp.client_settings import Settings
from errknow_ls.project import Excluder, Project, within

GITIGNORE = ".gitignore"


def _gitignore(directory: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = (directory / GITIGNORE).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def client_path(uri: str) -> Path | None:
    """The file a client's URI names, with ``..`` resolved: ``ws/../etc/x.log`` is not in ``ws``."""
    path = to_fs_path(uri)
    return Path(os.path.normpath(path)) if path else None


@dataclass(slots=True)
class _Folder:
    """One workspace folder's rules, with the ``.gitignore`` files read so far."""

    root: Path
    excluder: Excluder
    editor: pathspec.GitIgnoreSpec
    gitignores: dict[Path, pathspec.GitIgnoreSpec | None] = field(default_factory=dict)

    def _spec(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self.gitignores:
            self.gitignores[directory] = _gitignore(directory)
        return self.gitignores[directory]

    def ignores(self, path: Path, is_dir: bool) -> bool:
        if self.excluder.excludes(path):
            return True
        suffix = "/" if is_dir else ""
        if self.editor.match_file(path.relative_to(self.root).as_posix() + suffix):
            return True
        for directory in (path.parent, *path.parent.parents):
            spec = self._spec(directory)
            if spec is not None and spec.match_file(path.relative_to(directory).as_posix() + suffix):
                return True
            if directory == self.root:
                break
        return False

    def includes(self, path: Path) -> bool:
        """``path`` (a ``*.py`` below the root) and none of the directories above it are excluded."""
        if path.suffix != ".py" or not within(path, self.root):
            return False
        directories = [d for d in path.parents if d.is_relative_to(self.root) and d != self.root]
        return not any(self.ignores(d, is_dir=True) for d in reversed(directories)) and not self.ignores(
            path, is_dir=False
        )

    def files(self) -> Iterator[Path]:
        for directory, dirnames, filenames in os.walk(self.root):
            here = Path(directory)
            dirnames[:] = sorted(d for d in dirnames if not self.ignores(here / d, is_dir=True))
            for name in sorted(filenames):
                path = here / name
                if not name.endswith(".py") or self.ignores(path, is_dir=False):
                    continue
                if not path.is_symlink() or within(path, self.root):  # os.walk follows no directory link
                    yield path


class Scope:
    """The workspace's checked files, by its folders' settings and the editor's."""

    def __init__(self, projects: list[Project], settings: Settings) -> None:
        editor = pathspec.GitIgnoreSpec.from_lines(settings.exclude)
        self._folders = [_Folder(p.root, p.excluder(), editor) for p in projects if p.root.is_dir()]

    def files(self) -> list[Path]:
        seen: set[Path] = set()
        found = []
        for folder in self._folders:
            for path in folder.files():
                if path not in seen:
                    seen.add(path)
                    found.append(path)
        return found

    def includes(self, path: Path) -> bool:
        return any(folder.includes(path) for folder in self._folders)
