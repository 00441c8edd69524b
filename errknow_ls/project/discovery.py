"""Which files a ``check`` run reads: ``*.py`` and ``*.ipynb`` below the given directories, and files
given by name."""

from __future__ import annotations

import fnmatch
import functools
import operator
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from errknow_ls.project.gitignore import GITIGNORE, Gitignores

CHECKED_SUFFIXES = (".py", ".ipynb")
DEFAULT_EXCLUDE = (
    ".*",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
"""Directory names never entered unless a path names them: hidden ones (.git, .venv, .tox, ...),
caches, virtual environments, build output."""


@dataclass(frozen=True, slots=True)
class Discovered:
    names: list[str] = field(default_factory=list)
    """In a stable order, each file once, spelled as the user's path plus the part found below it,
    as ``str`` of its ``Path`` spells it (a warm ``check`` looks files up by name: no ``Path`` per
    file for a result the cache holds)."""
    errors: list[tuple[Path, str]] = field(default_factory=list)
    """Paths that do not exist or cannot be listed, and why."""

    @property
    def files(self) -> list[Path]:
        return [Path(name) for name in self.names]


@dataclass(frozen=True, slots=True)
class Excluder:
    """Globs matched against a name, and against the path relative to the project root."""

    patterns: tuple[str, ...] = DEFAULT_EXCLUDE
    root: Path | None = None

    def excludes(self, path: Path) -> bool:
        if self.excludes_name(path.name):
            return True
        if self.root is None:
            return False
        return self.excludes_real(os.path.realpath(path), os.path.realpath(self.root))

    def excludes_given(self, path: Path) -> bool:
        """ruff's ``--force-exclude``: ``path``, named on the command line, or a directory above it up
        to the project root (else the working directory) is excluded; outside it, by name only."""
        absolute = Path(path).absolute()
        stop = (self.root or Path.cwd()).absolute()
        if not absolute.is_relative_to(stop):
            return self.excludes_name(absolute.name)
        candidates = [absolute, *absolute.parents]
        return any(self.excludes(candidate) for candidate in candidates[: candidates.index(stop)])

    def excludes_name(self, name: str) -> bool:
        return _name_matcher(self.patterns)(name) is not None

    def excludes_real(self, real: str, real_root: str) -> bool:
        """``real``, a path with no symlinks left, relative to ``real_root`` (the same, for the root)."""
        if real == real_root:
            relative = "."
        else:
            prefix = real_root if real_root.endswith(os.sep) else real_root + os.sep
            if not real.startswith(prefix):
                return False
            relative = real[len(prefix) :].replace(os.sep, "/")
        return _relative_matcher(self.patterns)(relative) is not None


@functools.lru_cache(maxsize=16)
def _name_matcher(patterns: tuple[str, ...]) -> Callable[[str], object]:
    """One compiled alternative of every glob: ``fnmatchcase`` against each in turn, at once."""
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns) or "(?!)").match


@functools.lru_cache(maxsize=16)
def _relative_matcher(patterns: tuple[str, ...]) -> Callable[[str], object]:
    """A glob matches a relative path, or any path below it (``legacy`` excludes ``legacy/a.py``)."""
    globs = []
    for given in patterns:
        pattern = given.removeprefix("./").rstrip("/")
        globs += [fnmatch.translate(pattern), fnmatch.translate(f"{pattern}/*")]
    return re.compile("|".join(f"(?:{glob})" for glob in globs) or "(?!)").match


def discover(
    paths: Sequence[Path], excluder: Excluder, *, respect_gitignore: bool = True, force_exclude: bool = False
) -> Discovered:
    """The files below ``paths``; what ``.gitignore`` ignores is skipped in directories walked
    (``respect_gitignore``), never for a path named; ``force_exclude`` applies the excludes to the
    paths named too."""
    found = Discovered()
    seen: set[str] = set()
    real_root = None if excluder.root is None else os.path.realpath(excluder.root)
    for path in paths:
        if force_exclude and excluder.excludes_given(path):
            continue
        if path.is_file():
            candidates: Iterator[tuple[str, str]] = iter([(str(path), os.path.realpath(path))])
        elif path.is_dir():
            gitignores = None
            if respect_gitignore:
                inside = excluder.root is not None and within(path.absolute(), excluder.root.absolute())
                gitignores = Gitignores(excluder.root if inside and excluder.root else path)
            candidates = _walk(path, excluder, gitignores, real_root, found.errors)
        else:
            problem = "No such file or directory" if not path.exists() else "not a file or directory"
            found.errors.append((path, problem))
            continue
        for candidate, real in candidates:
            if real not in seen:
                seen.add(real)
                found.names.append(candidate)
    return found


_NAME = operator.attrgetter("name")


def _walk(
    top: Path,
    excluder: Excluder,
    gitignores: Gitignores | None,
    real_root: str | None,
    errors: list[tuple[Path, str]],
) -> Iterator[tuple[str, str]]:
    """``*.py`` and ``*.ipynb`` files below ``top`` (their names as ``Discovered.names`` spells them)
    with their real paths, as ``os.walk`` (top-down, symlinked directories listed but not entered)
    would find them, in sorted order; one ``scandir`` per directory, and ``realpath`` only for
    symlinks (the real path of anything else is its directory's real path and its name). Strings
    throughout: this runs for every entry of the tree."""
    excludes_name = _name_matcher(excluder.patterns)
    pending = [(str(top), os.path.realpath(top))]
    while pending:
        directory, real_directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError as exc:
            errors.append((Path(exc.filename or directory), exc.strerror or str(exc)))
            continue
        ignoring = gitignores is not None and gitignores.may_ignore_in(
            os.path.abspath(directory),  # noqa: PTH100
            has_gitignore=any(entry.name == GITIGNORE for entry in entries),
        )
        subdirectories = []
        inside = real_directory if real_directory.endswith(os.sep) else real_directory + os.sep
        for entry in entries:
            name = entry.name
            try:
                is_directory = entry.is_dir()
            except OSError:
                is_directory = False
            if not is_directory and not name.endswith(CHECKED_SUFFIXES):
                continue
            symlink = entry.is_symlink()
            if (is_directory and symlink) or excludes_name(name) is not None:
                continue
            path = name if directory == os.curdir else entry.path  # as ``Path`` spells ``./name``
            real = os.path.realpath(path) if symlink else inside + name
            if real_root is not None and excluder.excludes_real(real, real_root):
                continue
            if ignoring and gitignores is not None and gitignores.ignores(path, is_directory):
                continue
            if is_directory:
                subdirectories.append((path, real))
            else:
                yield path, real
        pending += reversed(subdirectories)


def within(path: Path, root: Path) -> bool:
    """``path`` is below ``root`` and stays there once symlinks are followed: a cloned repository's
    ``notes.py -> ~/.ssh/id_rsa`` is not a workspace file."""
    real = Path(os.path.realpath(path))
    return path.is_relative_to(root) and real.is_relative_to(os.path.realpath(root))
