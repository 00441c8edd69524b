"""What ``.gitignore`` files ignore, as git reads them: each directory's file matches paths relative
to that directory, and the deepest file with a pattern matching a path decides (a nested
``!keep.py`` re-includes what a parent's ``*.py`` ignored). A path below an ignored directory is
never re-included, as in git: the walks do not enter ignored directories.

The files read are those from the path's directory up to the boundary: the root of the git
repository around it (the nearest directory holding ``.git``), else the given fallback (the project
root, the workspace folder, or the directory walked). In a repository, ``.git/info/exclude`` decides
below every ``.gitignore``, and git's global excludes file below that (as in git): the file
``core.excludesFile`` names in the repository's, the user's or the system's git configuration
(read by dulwich as git reads them), else ``$XDG_CONFIG_HOME/git/ignore`` (``~/.config/git/ignore``);
both match paths relative to the repository root."""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

log = logging.getLogger(__name__)
GITIGNORE = ".gitignore"


INFO_EXCLUDE = Path("info") / "exclude"
CONFIG = "config"


def _read(file: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    # Imported here: a walk of folders that hold no .gitignore (and outside a repository) needs none.
    import pathspec  # noqa: PLC0415

    return pathspec.GitIgnoreSpec.from_lines(lines)


def repository_root(path: Path) -> Path | None:
    """The nearest directory at or above ``path`` (absolute) holding ``.git`` (a directory, or the
    file a worktree or submodule has)."""
    for directory in (path, *path.parents):
        if (directory / ".git").exists():
            return directory
    return None


def git_directory(repository: Path) -> Path | None:
    """The repository's git directory, where its ``info/exclude`` and ``config`` are: ``.git``
    itself, or, for a worktree or submodule (``.git`` is a file ``gitdir: …``), the directory it
    names, or that one's ``commondir`` (a worktree shares its repository's)."""
    dot_git = repository / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    directory = repository / line.removeprefix("gitdir:").strip()
    try:
        common = (directory / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return directory
    return directory / common


def global_excludes_file(directory: Path) -> Path:
    """The global excludes file git reads for the repository whose git directory is ``directory``:
    ``core.excludesFile`` from its configuration (the repository's over the user's over the
    system's, with their includes), else ``$XDG_CONFIG_HOME/git/ignore``."""
    # Imported here: only a walk inside a git repository needs it, and it costs a ``check`` run
    # some 50 ms to import.
    from dulwich.config import ConfigFile, StackedConfig  # noqa: PLC0415
    from dulwich.ignore import default_user_ignore_filter_path  # noqa: PLC0415

    backends = StackedConfig.default_backends()
    with contextlib.suppress(FileNotFoundError):
        backends.insert(0, ConfigFile.from_path(str(directory / CONFIG)))
    return Path(default_user_ignore_filter_path(StackedConfig(backends))).expanduser()


def _read_global_excludes(directory: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        return _read(global_excludes_file(directory))
    except (OSError, ValueError) as exc:  # git would stop on a configuration it cannot read
        log.warning("git's configuration cannot be read (%s): its global excludes file is not applied", exc)
        return None


class Gitignores:
    """The ``.gitignore`` files of one tree, each read once."""

    def __init__(self, fallback: Path) -> None:
        top = fallback.absolute()
        repository = repository_root(top)
        self.boundary = repository or top
        directory = None if repository is None else git_directory(repository)
        self._repository_excludes = (
            [] if directory is None else [_read(directory / INFO_EXCLUDE), _read_global_excludes(directory)]
        )
        """``info/exclude``, then the global excludes file: what decides below every ``.gitignore``."""
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}
        """Each directory's ``.gitignore``, by the directory's absolute path (strings: a walk asks
        for every file, and building paths costs more than matching)."""
        self._chains: dict[str, tuple[tuple[int, pathspec.GitIgnoreSpec], ...]] = {}
        self._boundary = os.path.abspath(self.boundary)  # noqa: PTH100
        self._inside = self._boundary if self._boundary.endswith(os.sep) else self._boundary + os.sep

    def _spec(self, directory: str) -> pathspec.GitIgnoreSpec | None:
        if directory not in self._specs:
            self._specs[directory] = _read(Path(directory) / GITIGNORE)
        return self._specs[directory]

    def _chain(self, directory: str) -> tuple[tuple[int, pathspec.GitIgnoreSpec], ...]:
        """The ``.gitignore`` files that match paths in ``directory`` (below the boundary), deepest
        first, each with the length of its directory's path and separator: worked out once per
        directory (a walk asks for every file in it)."""
        chain = self._chains.get(directory)
        if chain is None:
            spec = self._spec(directory)
            own = () if spec is None else ((len(directory.rstrip(os.sep)) + 1, spec),)
            at_top = directory == self._boundary or len(directory) <= len(self._boundary)
            parent = os.path.dirname(directory)  # noqa: PTH120
            chain = self._chains[directory] = own + (() if at_top else self._chain(parent))
        return chain

    def may_ignore_in(self, directory: str, *, has_gitignore: bool) -> bool:
        """Whether a file read here could ignore an entry of ``directory`` (absolute), which holds a
        ``.gitignore`` as its listing says (``has_gitignore``: a walk that listed it need not try to
        open one that is not there); when not, a walk need not ask of each entry."""
        if not has_gitignore:
            self._specs.setdefault(directory, None)
        if not (directory + os.sep).startswith(self._inside):
            return False
        return bool(self._chain(directory)) or any(spec is not None for spec in self._repository_excludes)

    def ignores(self, path: str | os.PathLike[str], is_dir: bool) -> bool:
        """Whether ``path`` (below the boundary; relative paths are taken from the working
        directory) is ignored; a directory's patterns ending in ``/`` match it only when ``is_dir``."""
        absolute = os.path.abspath(path)  # noqa: PTH100 (a str: no Path per file)
        if not absolute.startswith(self._inside):
            return False
        suffix = "/" if is_dir else ""
        for start, spec in self._chain(os.path.dirname(absolute)):  # noqa: PTH120
            decided = spec.check_file(absolute[start:].replace(os.sep, "/") + suffix).include
            if decided is not None:
                return decided
        relative = absolute[len(self._inside) :].replace(os.sep, "/") + suffix
        for repository_spec in self._repository_excludes:
            decided = None if repository_spec is None else repository_spec.check_file(relative).include
            if decided is not None:
                return decided
        return False
