"""Log files of the workspace, read as they grow: only the bytes appended since the last read.

Each watched file keeps its offset and a :class:`TracebackScanner`; a file now shorter than the
offset was truncated or rotated, and is read again from its start.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from errknow_ls.project import within
from errknow_ls.tracebacks import Traceback, TracebackScanner

log = logging.getLogger(__name__)
CHUNK_BYTES = 1 << 20
START_TAIL_BYTES = 8 << 20
"""A log found at start is read from this far before its end (then as it grows)."""
MAX_FOUND = 200
HEAD_BYTES = 256
MAX_WALKED = 200_000
DEFAULT_LOG_GLOBS = ("**/*.log", "**/*.out", "**/*.err", "**/nohup.out", "**/slurm-*.out")


@dataclass(slots=True)
class Poll:
    """What one read of a watched log found."""

    restarted: bool
    """The file was truncated or rotated: what it showed before is gone."""
    tracebacks: list[Traceback]
    """Completed tracebacks, then the one still being written if its message line is in."""
    read: int
    """Bytes read this time."""


@dataclass(slots=True)
class WatchedLog:
    path: Path
    offset: int = 0
    scanner: TracebackScanner = field(default_factory=TracebackScanner)
    bytes_read: int = 0
    """All bytes read from the file so far (for tests and the log)."""
    head: bytes = b""
    """The file's first bytes when last read: other first bytes mean another run rewrote it."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_tail(cls, path: Path) -> WatchedLog:
        """A log found already written: read from ``START_TAIL_BYTES`` before its end."""
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        return cls(path, offset=max(0, size - START_TAIL_BYTES))

    def poll(self) -> Poll:
        """Read what was appended since the last poll (blocking: run it in a worker thread)."""
        with self._lock:
            restarted = False
            with self.path.open("rb") as stream:
                head = stream.read(HEAD_BYTES)
                size = stream.seek(0, 2)
                if size < self.offset or head[: len(self.head)] != self.head:  # truncated or rewritten
                    self.offset, self.scanner, restarted = 0, TracebackScanner(), True
                self.head = head
                stream.seek(self.offset)
                found: list[Traceback] = []
                read = 0
                while self.offset < size:
                    chunk = stream.read(min(CHUNK_BYTES, size - self.offset))
                    if not chunk:
                        break
                    self.offset += len(chunk)
                    read += len(chunk)
                    found += self.scanner.feed(chunk)
            self.bytes_read += read
            pending = [tb for tb in self.scanner.pending() if tb.exception]
            log.debug("%s: read %d bytes (offset %d)", self.path, read, self.offset)
            return Poll(restarted, found + pending, read)


class LogGlobs:
    """Which workspace files are logs to watch, by the ``logGlobs`` setting."""

    def __init__(self, globs: list[str], roots: list[Path]) -> None:
        self.globs = globs
        self._spec = pathspec.GitIgnoreSpec.from_lines(globs)
        self._roots = roots

    def find(self, skipped: frozenset[str]) -> list[Path]:
        """The logs the workspace holds now, oldest first (so the newest run wins); at most
        ``MAX_FOUND`` (the newest), walking at most ``MAX_WALKED`` files and never into ``skipped``
        directories or hidden ones, nor out of a root by a symlink."""
        found: list[tuple[float, Path]] = []
        walked = 0
        for root in self._roots:
            for directory, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if d not in skipped and not d.startswith("."))
                walked += len(filenames)
                for name in filenames:
                    path = Path(directory) / name
                    if path.suffix != ".py" and self.matches(path) and within(path.resolve(), root.resolve()):
                        try:
                            found.append((path.stat().st_mtime, path))
                        except OSError:
                            continue
                if walked > MAX_WALKED:
                    log.warning(
                        "more than %d files in the workspace: logs beyond them are not read at start",
                        MAX_WALKED,
                    )
                    return [path for _, path in sorted(found)[-MAX_FOUND:]]
        return [path for _, path in sorted(found)[-MAX_FOUND:]]

    def matches(self, path: Path) -> bool:
        for root in self._roots:
            if within(path, root) and self._spec.match_file(path.relative_to(root).as_posix()):
                return True
        return False
