"""Which files a ``check`` run reads: ``*.py`` below the given directories, and files given by name."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

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
    files: list[Path] = field(default_factory=list)
    """In a stable order, each file once, spelled as the user's path plus the part found below it."""
    errors: list[tuple[Path, str]] = field(default_factory=list)
    """Paths that do not exist or cannot be listed, and why."""


@dataclass(frozen=True, slots=True)
class Excluder:
    """Globs matched against a name, and against the path relative to the project root."""

    patterns: tuple[str, ...] = DEFAULT_EXCLUDE
    root: Path | None = None

    def excludes(self, path: Path) -> bool:
        if any(fnmatch.fnmatchcase(path.name, pattern) for pattern in self.patterns):
            return True
        if self.root is None:
            return False
        try:
            relative = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return False
        return any(_match_relative(relative, pattern) for pattern in self.patterns)


def _match_relative(relative: str, pattern: str) -> bool:
    pattern = pattern.removeprefix("./").rstrip("/")
    return fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, f"{pattern}/*")


def discover(paths: Sequence[Path], excluder: Excluder) -> Discovered:
    found = Discovered()
    seen: set[Path] = set()
    for path in paths:
        if path.is_file():
            candidates: Iterator[Path] = iter([path])
        elif path.is_dir():
            candidates = _walk(path, excluder, found.errors)
        else:
            problem = "No such file or directory" if not path.exists() else "not a file or directory"
            found.errors.append((path, problem))
            continue
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.files.append(candidate)
    return found


def _walk(top: Path, excluder: Excluder, errors: list[tuple[Path, str]]) -> Iterator[Path]:
    def unreadable(exc: OSError) -> None:
        errors.append((Path(exc.filename or top), exc.strerror or str(exc)))

    for directory, dirnames, filenames in os.walk(top, onerror=unreadable):
        here = Path(directory)
        dirnames[:] = sorted(d for d in dirnames if not excluder.excludes(here / d))
        for name in sorted(filenames):
            file = here / name
            if name.endswith(".py") and not excluder.excludes(file):
                yield file
