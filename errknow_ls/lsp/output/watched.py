"""Log files of the workspace, read as they grow: only the bytes appended since the last read.

Each watched file keeps its offset and a :class:`TracebackScanner`; a file now shorter than the
offset was truncated or rotated, and is read again from its start.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from errknow_ls.project import within
from errknow_ls.tracebacks import Traceback, TracebackScanner

log = logging.getLogger(__name__)
CHUNK_BYTES = 1 << 20
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
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def poll(self) -> Poll:
        """Read what was appended since the last poll (blocking: run it in a worker thread)."""
        with self._lock:
            restarted = False
            with self.path.open("rb") as stream:
                size = stream.seek(0, 2)
                if size < self.offset:
                    self.offset, self.scanner, restarted = 0, TracebackScanner(), True
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

    def matches(self, path: Path) -> bool:
        for root in self._roots:
            if within(path, root) and self._spec.match_file(path.relative_to(root).as_posix()):
                return True
        return False
