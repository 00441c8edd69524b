"""What the server knows of tracebacks seen in program output: each finding on a log's message line
or on the user's own source line, where it came from, and the logs and terminals being read.

Per source file only the latest run counts: a traceback newer than the last one that pointed into
a file replaces it. Each finding remembers where it came from (its *origin*: a log's URI or a
terminal's ``source``), so that clearing or closing the log takes its findings back.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from errknow_ls.lsp.output.paths import WorkspaceFiles
from errknow_ls.lsp.output.watched import WatchedLog
from errknow_ls.tracebacks import TracebackScanner

MAX_LOG_HITS = 100


@dataclass(frozen=True, slots=True)
class LogHit:
    """A traceback's message line in a log the client knows."""

    uri: str
    line: int
    text: str | None
    """The line as the log has it (an open document), or None (a file on disk: the whole line)."""
    exception_line: str
    record_id: str | None
    where: str | None
    """``train.py:33``, the user frame as found in the workspace."""
    bare: bool = False
    """An error line logged without a traceback: no frames, so no source line."""


@dataclass(frozen=True, slots=True)
class SourceHit:
    """The user's line a traceback was raised from."""

    uri: str
    line: int
    text: str
    exception_line: str
    record_id: str | None
    origin: str
    label: str
    """Where the run was logged, as the message names it."""
    log_uri: str | None
    log_line: int | None


@dataclass(slots=True)
class OutputFindings:
    logs: dict[str, dict[int, LogHit]] = field(default_factory=dict)
    sources: dict[str, list[SourceHit]] = field(default_factory=dict)
    serials: dict[str, int] = field(default_factory=dict)
    files: WorkspaceFiles | None = None
    watched: dict[str, WatchedLog] = field(default_factory=dict)
    """Log files on disk (by URI), read as they grow."""
    terminals: dict[str, TracebackScanner] = field(default_factory=dict)
    """One scanner per terminal ``source``, oldest first."""

    def touch(self, uri: str) -> None:
        self.serials[uri] = self.serials.get(uri, 0) + 1

    def drop_origin(self, origin: str) -> set[str]:
        """Everything ``origin`` showed goes; returns the URIs whose diagnostics changed."""
        changed = {origin} if self.logs.pop(origin, None) else set()
        for uri, hits in list(self.sources.items()):
            kept = [hit for hit in hits if hit.origin != origin]
            if len(kept) != len(hits):
                changed.add(uri)
                self._set_source(uri, kept)
        for uri in changed:
            self.touch(uri)
        return changed

    def add(self, log_hits: Iterable[LogHit], source_hits: Iterable[SourceHit]) -> set[str]:
        changed: set[str] = set()
        for hit in log_hits:
            lines = self.logs.setdefault(hit.uri, {})
            if len(lines) < MAX_LOG_HITS or hit.line in lines:
                lines[hit.line] = hit
                changed.add(hit.uri)
        latest: dict[str, SourceHit] = {}
        for source_hit in source_hits:
            latest[source_hit.uri] = source_hit  # the newest run wins
        for uri, newest in latest.items():
            self._set_source(uri, [newest])
            changed.add(uri)
        for uri in changed:
            self.touch(uri)
        return changed

    def drop_source_lines(self, uri: str, lines: set[int]) -> bool:
        hits = self.sources.get(uri, [])
        kept = [hit for hit in hits if hit.line not in lines]
        if len(kept) == len(hits):
            return False
        self._set_source(uri, kept)
        self.touch(uri)
        return True

    def shift_source(self, uri: str, after: int, delta: int) -> None:
        hits = self.sources.get(uri)
        if hits and delta:
            self.sources[uri] = [_moved(hit, delta) if hit.line > after else hit for hit in hits]
            self.touch(uri)

    def _set_source(self, uri: str, hits: list[SourceHit]) -> None:
        if hits:
            self.sources[uri] = hits
        else:
            self.sources.pop(uri, None)

    def uris(self) -> set[str]:
        return set(self.logs) | set(self.sources)

    def result_id(self, uri: str) -> str:
        return str(self.serials.get(uri, 0))


def _moved(hit: SourceHit, delta: int) -> SourceHit:
    return SourceHit(
        hit.uri, hit.line + delta, hit.text, hit.exception_line, hit.record_id, hit.origin, hit.label,
        hit.log_uri, hit.log_line,
    )  # fmt: skip
