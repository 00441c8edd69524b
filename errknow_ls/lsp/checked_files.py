"""Which files of the workspace are checked: every ``*.py`` of its folders, less what is excluded.

Excluded: what the CLI excludes (its defaults, or ``[tool.errknow] exclude``, and
``extend-exclude``), what ``.gitignore`` files ignore, and the editor's ``exclude`` patterns.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec
from lsprotocol import types
from pygls.uris import to_fs_path

from errknow_ls.lsp.client_settings import Settings
from errknow_ls.project import GITIGNORE, Excluder, Gitignores, Project, within

PYPROJECT = "pyproject.toml"


def client_path(uri: str) -> Path | None:
    """The file a client's URI names, with ``..`` resolved: ``ws/../etc/x.log`` is not in ``ws``."""
    path = to_fs_path(uri)
    return Path(os.path.normpath(path)) if path else None


@dataclass(slots=True)
class _Folder:
    """One workspace folder's rules, with the ``.gitignore`` files (unless ``respect-gitignore`` is false)."""

    root: Path
    excluder: Excluder
    editor: pathspec.GitIgnoreSpec
    gitignores: Gitignores | None

    def ignores(self, path: Path, is_dir: bool) -> bool:
        if self.excluder.excludes(path):
            return True
        suffix = "/" if is_dir else ""
        if self.editor.match_file(path.relative_to(self.root).as_posix() + suffix):
            return True
        return self.gitignores is not None and self.gitignores.ignores(path, is_dir)

    def includes(self, path: Path) -> bool:
        """``path`` (a ``*.py`` below the root) and none of the directories above it are excluded."""
        if path.suffix != ".py" or not within(path, self.root):
            return False
        directories = [d for d in path.parents if d.is_relative_to(self.root) and d != self.root]
        return not any(self.ignores(d, is_dir=True) for d in reversed(directories)) and not self.ignores(
            path, is_dir=False
        )

    def files(self, top: Path | None = None) -> Iterator[Path]:
        for directory, dirnames, filenames in os.walk(top or self.root):
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
        self._folders = [
            _Folder(
                p.root,
                p.excluder(),
                editor,
                None if p.settings.respect_gitignore is False else Gitignores(p.root),
            )
            for p in projects
            if p.root.is_dir()
        ]

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

    def files_below(self, directory: Path) -> list[Path]:
        """The checked files below ``directory`` (itself inside a folder and not excluded)."""
        found: dict[Path, None] = {}
        for folder in self._folders:
            if within(directory, folder.root) and not any(
                folder.ignores(d, is_dir=True)
                for d in (directory, *directory.parents)
                if d.is_relative_to(folder.root) and d != folder.root
            ):
                found.update(dict.fromkeys(folder.files(directory)))
        return list(found)


def file_events(
    scope: Scope, changes: Sequence[types.FileEvent], known: Iterable[str]
) -> list[types.FileEvent]:
    """Watched-file events with each directory's event spread over its files: a directory
    created or changed stands for the checked files below it now, one deleted (or renamed away)
    for the known files that were below it. Clients report a moved or deleted directory as one
    event on the directory."""
    known_paths = [(uri, path) for uri in known if (path := client_path(uri)) is not None]
    expanded: list[types.FileEvent] = []
    for change in changes:
        path = client_path(change.uri)
        if path is None or path.suffix == ".py" or path.name in {GITIGNORE, PYPROJECT}:
            expanded.append(change)
        elif path.is_dir():
            expanded += [
                types.FileEvent(uri=file.as_uri(), type=types.FileChangeType.Created)
                for file in scope.files_below(path)
            ]
        elif not path.exists():
            expanded += [
                types.FileEvent(uri=uri, type=types.FileChangeType.Deleted)
                for uri, known_path in known_paths
                if known_path.is_relative_to(path)
            ]
        else:
            expanded.append(change)
    return expanded
