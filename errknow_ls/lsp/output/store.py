"""What the server knows of tracebacks seen in program output: each finding on a log's message line
or on the user's own source line, the run it came from, and the logs and terminals being read.

A finding lives until what it was made for is gone:

- its source line's text changes (each finding keeps the text it was raised on);
- a newer traceback lands in the same file on another line or for another error (the newest run
  wins; the same error on the same line from several runs is kept once per run, and shown once);
- a later run of the same program (a log's URI; a command line in the same directory and terminal)
  ends with exit code 0 without raising it;
- its log is closed, deleted, truncated or rewritten;
- the user clears the findings from runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from errknow_ls.lsp.output.paths import WorkspaceFiles
from errknow_ls.lsp.output.watched import WatchedLog
from errknow_ls.tracebacks import TracebackScanner

MAX_LOG_HITS = 100


@dataclass(frozen=True, slots=True)
class Run:
    """Where a traceback was printed."""

    origin: str
    """The log's URI, or the ``source`` of terminal output (one per run in VS Code)."""
    program: str
    """What later runs of the same program share: the log's URI; a command line, the directory it
    ran in and the terminal, where the editor names one."""
    kind: Literal["log", "output", "terminal"]
    """A log file, an editor's output panel, a terminal."""
    name: str | None = None
    """The log's path in the workspace, or the terminal's number (None: not known)."""
    started: str = ""
    """When the server first saw the run, ``14:03`` in local time."""
    command: str | None = None
    """The command line a terminal ran, when the editor said it."""


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
    """The line's text when the traceback named it: the finding goes when the line is edited."""
    exception_line: str
    record_id: str | None
    run: Run
    log_uri: str | None
    log_line: int | None

    def same_error(self, other: SourceHit) -> bool:
        return (self.line, self.text, self.record_id, self.exception_line) == (
            other.line,
            other.text,
            other.record_id,
            other.exception_line,
        )


@dataclass(slots=True)
class OutputFindings:
    logs: dict[str, dict[int, LogHit]] = field(default_factory=dict)
    sources: dict[str, list[SourceHit]] = field(default_factory=dict)
    serials: dict[str, int] = field(default_factory=dict)
    files: WorkspaceFiles | None = None
    watched: dict[str, WatchedLog] = field(default_factory=dict)
    """Log files on disk (by URI), read as they grow."""
    terminals: dict[str, tuple[TracebackScanner, Run]] = field(default_factory=dict)
    """One scanner per terminal ``source`` (a run), and the run; oldest first."""

    def touch(self, uri: str) -> None:
        self.serials[uri] = self.serials.get(uri, 0) + 1

    def drop_origin(self, origin: str) -> set[str]:
        """Everything ``origin`` showed goes; returns the URIs whose diagnostics changed."""
        changed = self._drop_sources(lambda hit: hit.run.origin == origin)
        if self.logs.pop(origin, None):
            self.touch(origin)
            changed.add(origin)
        return changed

    def drop_earlier_runs(self, run: Run) -> set[str]:
        """``run`` ended: what earlier runs of its program showed and it did not raise again goes."""
        return self._drop_sources(lambda hit: hit.run.program == run.program and hit.run.origin != run.origin)

    def clear(self) -> set[str]:
        """Every finding from output goes (the user asked); logs and terminals are read on from here."""
        changed = self.uris()
        self.logs.clear()
        self.sources.clear()
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
            latest[source_hit.uri] = source_hit  # the newest traceback of this output wins
        for uri, newest in latest.items():
            # Other runs stay only where they raised the same error on the same line: one bug, its runs.
            kept = [
                hit for hit in self.sources.get(uri, []) if hit.same_error(newest) and hit.run != newest.run
            ]
            self._set_source(uri, [*kept, newest])
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

    def drop_edited(self, uri: str, lines: list[str]) -> bool:
        """Findings whose line no longer holds the text they were raised on go."""
        return self.drop_source_lines(
            uri,
            {
                hit.line
                for hit in self.sources.get(uri, [])
                if hit.line >= len(lines) or lines[hit.line] != hit.text
            },
        )

    def shift_source(self, uri: str, after: int, delta: int) -> None:
        hits = self.sources.get(uri)
        if hits and delta:
            self.sources[uri] = [
                replace(hit, line=hit.line + delta) if hit.line > after else hit for hit in hits
            ]
            self.touch(uri)

    def _drop_sources(self, gone: Callable[[SourceHit], bool]) -> set[str]:
        changed: set[str] = set()
        for uri, hits in list(self.sources.items()):
            kept = [hit for hit in hits if not gone(hit)]
            if len(kept) != len(hits):
                changed.add(uri)
                self._set_source(uri, kept)
        for uri in changed:
            self.touch(uri)
        return changed

    def _set_source(self, uri: str, hits: list[SourceHit]) -> None:
        if hits:
            self.sources[uri] = hits
        else:
            self.sources.pop(uri, None)

    def uris(self) -> set[str]:
        return set(self.logs) | set(self.sources)

    def result_id(self, uri: str) -> str:
        return str(self.serials.get(uri, 0))
