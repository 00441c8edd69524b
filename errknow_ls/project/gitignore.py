"""What ``.gitignore`` files ignore, as git reads them: each directory's file matches paths relative
to that directory, and the deepest file with a pattern matching a path decides (a nested
``!keep.py`` re-includes what a parent's ``*.py`` ignored). A path below an ignored directory is
never re-included, as in git: the walks do not enter ignored directories.

The files read are those from the path's directory up to the boundary: the root of the git
repository around it (the nearest directory holding ``.git``), else the given fallback (the project
root, the workspace folder, or the directory walked). In a repository, ``.git/info/exclude`` decides
last, below every ``.gitignore`` (as in git). Git's global excludes file is not read."""

from __future__ import annotations

from pathlib import Path

import pathspec

GITIGNORE = ".gitignore"


INFO_EXCLUDE = Path(".git") / "info" / "exclude"


def _read(file: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def repository_root(path: Path) -> Path | None:
    """The nearest directory at or above ``path`` (absolute) holding ``.git`` (a directory, or the
    file a worktree or submodule has)."""
    for directory in (path, *path.parents):
        if (directory / ".git").exists():
            return directory
    return None


class Gitignores:
    """The ``.gitignore`` files of one tree, each read once."""

    def __init__(self, fallback: Path) -> None:
        top = fallback.absolute()
        repository = repository_root(top)
        self.boundary = repository or top
        self._info_exclude = None if repository is None else _read(repository / INFO_EXCLUDE)
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._specs:
            self._specs[directory] = _read(directory / GITIGNORE)
        return self._specs[directory]

    def ignores(self, path: Path, is_dir: bool) -> bool:
        """Whether ``path`` (below the boundary; relative paths are taken from the working
        directory) is ignored; a directory's patterns ending in ``/`` match it only when ``is_dir``."""
        absolute = Path(path).absolute()
        if not absolute.is_relative_to(self.boundary) or absolute == self.boundary:
            return False
        suffix = "/" if is_dir else ""
        for directory in absolute.parents:
            spec = self._spec(directory)
            if spec is not None:
                decided = spec.check_file(absolute.relative_to(directory).as_posix() + suffix).include
                if decided is not None:
                    return decided
            if directory == self.boundary:
                break
        if self._info_exclude is not None:
            return (
                self._info_exclude.check_file(absolute.relative_to(self.boundary).as_posix() + suffix).include
                is True
            )
        return False
