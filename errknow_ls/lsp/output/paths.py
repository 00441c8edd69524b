"""Paths printed in a traceback -> files of the workspace, by the longest matching path suffix.

A traceback printed on another machine or in a container names ``/mnt/job/code/train.py`` or
``C:\\Users\\me\\code\\train.py``; the workspace has ``code/train.py``. Only files found by walking
the workspace folders are ever answered (less the symlinks that lead out of them): a printed path
is never opened, resolved or stat-ed, so a traceback naming ``/etc/shadow`` cannot make the server
touch it.
"""

from __future__ import annotations

import os
import posixpath
import time
from collections.abc import Sequence
from pathlib import Path

from errknow_ls.project import within

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        "site-packages",
        ".tox",
        ".mypy_cache",
    }
)
SUFFIXES = (".py", ".ipynb")
MAX_FILES = 200_000
REBUILD_AFTER = 1.0
"""Seconds: a name not found rebuilds the index at most this often."""


def printed_parts(printed: str) -> list[str]:
    """``C:\\a\\.\\b.py`` -> ``['C:', 'a', 'b.py']``: separators unified, ``.`` and empty parts gone."""
    return [part for part in printed.strip().replace("\\", "/").split("/") if part not in ("", ".")]


class WorkspaceFiles:
    """The workspace's Python files and notebooks by name, walked once and again on a miss."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [Path(os.path.normpath(root)) for root in roots]
        self._by_name: dict[str, list[Path]] = {}
        self._built = -REBUILD_AFTER

    def rebuild(self) -> None:
        by_name: dict[str, list[Path]] = {}
        count = 0
        for root in self.roots:
            for directory, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith("."))
                for name in filenames:
                    path = Path(directory) / name
                    if not name.endswith(SUFFIXES) or count >= MAX_FILES:
                        continue
                    if not path.is_symlink() or within(path, root):  # a link out is not ours
                        by_name.setdefault(name, []).append(path)
                        count += 1
        self._by_name = by_name
        self._built = time.monotonic()

    def has(self, path: Path) -> bool:
        """Whether the walk found ``path`` (walking again, at most so often, if not)."""
        if path not in self._by_name.get(path.name, ()) and time.monotonic() - self._built >= REBUILD_AFTER:
            self.rebuild()
        return path in self._by_name.get(path.name, ())

    def find(self, printed: str, cwd: str | None = None) -> Path | None:
        """The workspace file ``printed`` names, or None (not in the workspace, or not found)."""
        parts = printed_parts(printed)
        if not parts:
            return None
        if parts[-1] not in self._by_name and time.monotonic() - self._built >= REBUILD_AFTER:
            self.rebuild()
        candidates = self._by_name.get(parts[-1], [])
        if not candidates:
            return None
        if cwd and not printed.startswith(("/", "\\")) and ":" not in printed[:3]:
            joined = Path(posixpath.normpath(posixpath.join(cwd.replace("\\", "/"), *parts)))
            if joined in candidates:
                return joined
        return max(candidates, key=lambda path: (_common_suffix(path.parts, parts), -len(path.parts)))


def _common_suffix(have: Sequence[str], printed: Sequence[str]) -> int:
    count = 0
    for mine, theirs in zip(reversed(have), reversed(printed), strict=False):
        if mine != theirs:
            break
        count += 1
    return count
