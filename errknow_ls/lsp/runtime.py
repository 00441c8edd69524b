"""Runtime findings: tracebacks seen in logs and terminals, as diagnostics on the log's message line
and on the user's own source line.

Per source file only the latest run counts: a traceback newer than the last one that pointed into
a file replaces it. Each finding remembers where it came from (its *origin*: a log's URI or a
terminal's ``source``), so that clearing or closing the log takes its findings back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from errknow_ls.core import Position
from errknow_ls.kb.explain import Context, render
from errknow_ls.lsp import convert
from errknow_ls.lsp.checking import Result
from errknow_ls.lsp.locate import WorkspaceFiles
from errknow_ls.lsp.snapshots import open_document
from errknow_ls.lsp.watching import WatchedLog
from errknow_ls.tracebacks import Frame, Traceback, TracebackScanner, match_traceback

if TYPE_CHECKING:
    from errknow_ls.lsp.server import ErrknowServer

log = logging.getLogger(__name__)
CODE = "runtime"
MAX_LOG_HITS = 100
MESSAGE_CHARS = 200


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
class Runtime:
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


# ---------------------------------------------------------------------- diagnostics


def _short(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"


def _data(record_id: str | None, origin: str | None) -> dict[str, Any]:
    # Deliberately not convert.DiagnosticData: a code action reads static fixes on this line instead.
    return {"runtime": {"record": record_id, "origin": origin}}


def diagnostics(ls: ErrknowServer, uri: str) -> list[types.Diagnostic]:
    """What the runtime shows in ``uri`` (a log or a source file), in the client's units."""
    runtime = ls.runtime
    wanted = unquote(uri)
    encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    found: list[types.Diagnostic] = []
    for key, hits in runtime.logs.items():
        if unquote(key) == wanted:
            found += [_log_diagnostic(hit, encoding) for hit in sorted(hits.values(), key=lambda h: h.line)]
    for key, source_hits in runtime.sources.items():
        if unquote(key) == wanted:
            found += [_source_diagnostic(hit, encoding) for hit in source_hits]
    return found


def _line_range(line: int, text: str | None, encoding: str) -> types.Range:
    if text is None:
        return types.Range(types.Position(line, 0), types.Position(line + 1, 0))
    start = len(text) - len(text.lstrip())
    positions = convert.Positions(text, encoding)
    return types.Range(
        types.Position(line, positions.to_client(Position(0, start)).character),
        types.Position(line, positions.to_client(Position(0, len(text.rstrip()))).character),
    )


def _log_diagnostic(hit: LogHit, encoding: str) -> types.Diagnostic:
    where = f" (raised in {hit.where})" if hit.where else ""
    return types.Diagnostic(
        range=_line_range(hit.line, hit.text, encoding),
        message=_short(hit.exception_line) + where,
        severity=types.DiagnosticSeverity.Error,
        code=hit.record_id or CODE,
        source=convert.SOURCE,
        data=_data(hit.record_id, hit.uri),
    )


def _source_diagnostic(hit: SourceHit, encoding: str) -> types.Diagnostic:
    related = None
    if hit.log_uri is not None and hit.log_line is not None:
        location = types.Location(
            uri=hit.log_uri,
            range=types.Range(types.Position(hit.log_line, 0), types.Position(hit.log_line, 0)),
        )
        related = [types.DiagnosticRelatedInformation(location=location, message=_short(hit.exception_line))]
    return types.Diagnostic(
        range=_line_range(hit.line, hit.text, encoding),
        message=f"{_short(hit.exception_line)}\nraised here in the run logged in {hit.label}",
        severity=types.DiagnosticSeverity.Error,
        code=hit.record_id or CODE,
        source=convert.SOURCE,
        related_information=related,
        data=_data(hit.record_id, hit.origin),
    )


def merged(ls: ErrknowServer, result: Result) -> list[types.Diagnostic]:
    return [*result.diagnostics, *diagnostics(ls, result.uri)]


def deliver(ls: ErrknowServer, uris: Iterable[str]) -> None:
    """Send the changed URIs' diagnostics by the channel each one takes (see ``publishing``)."""
    from errknow_ls.lsp import publishing

    refresh = False
    for uri in sorted(set(uris)):
        document = open_document(ls.workspace, uri)
        if ls.channel.pulls(document is not None):
            refresh = True
            continue
        version = None
        static: tuple[types.Diagnostic, ...] = ()
        if document is not None:
            version = document.version
            stored = ls.checks.stored(uri)
            if stored is not None and stored.version == version:
                static = stored.diagnostics
        elif (stored := ls.checks.stored(uri)) is not None and stored.version is None:
            static = stored.diagnostics
        publishing.push(ls, uri, [*static, *diagnostics(ls, uri)], version)
    if refresh and ls.channel.refresh:
        ls.workspace_diagnostic_refresh(None)


# ---------------------------------------------------------------------- tracebacks -> findings


def _files(ls: ErrknowServer) -> WorkspaceFiles:
    roots = ls.roots()
    if ls.runtime.files is None or ls.runtime.files.roots != roots:
        ls.runtime.files = WorkspaceFiles(roots)
    return ls.runtime.files


def _text_of(ls: ErrknowServer, uri: str, path: Path | None) -> str | None:
    document = ls.workspace.text_documents.get(unquote(uri))
    if document is not None:
        return str(document.source)
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _target(ls: ErrknowServer, frame: Frame, cwd: str | None) -> tuple[str, int, str] | None:
    """The workspace document and 0-based line of a frame, and the line's text; None if not ours."""
    if frame.line is None or frame.line < 1:
        return None
    line = frame.line - 1
    if frame.cell is not None:
        cell = _cell_uri(ls, frame.cell)
        text = _text_of(ls, cell, None) if cell else None
        return (
            (cell, line, convert.split_lines(text)[line])
            if cell and text and line < len(convert.split_lines(text))
            else None
        )
    path = _files(ls).find(frame.file, cwd)
    if path is None or path.suffix != ".py":
        return None
    uri = from_fs_path(str(path))
    text = _text_of(ls, uri, path) if uri else None
    if uri is None or text is None:
        return None
    lines = convert.split_lines(text)
    return (uri, line, lines[line]) if line < len(lines) else None


def _cell_uri(ls: ErrknowServer, count: int) -> str | None:
    """The open notebook cell that ran as ``In[count]``: by the client's execution summary, else by
    the execution counts saved in the notebook file."""
    notebooks = list(ls.workspace.notebook_documents.values())
    for notebook in notebooks:
        for cell in notebook.cells:
            summary = cell.execution_summary
            if summary is not None and summary.execution_order == count:
                return str(cell.document)
    for notebook in notebooks:
        path = to_fs_path(notebook.uri)
        if not path or not _files(ls).has(Path(path)):
            continue
        try:
            saved = json.loads(Path(path).read_text(encoding="utf-8"))
            index = next(i for i, c in enumerate(saved.get("cells", [])) if c.get("execution_count") == count)
        except (OSError, ValueError, StopIteration, AttributeError):
            continue
        if index < len(notebook.cells):
            return str(notebook.cells[index].document)
    return None


def findings(
    ls: ErrknowServer,
    tracebacks: Iterable[Traceback],
    *,
    origin: str,
    label: str,
    log_uri: str | None,
    log_lines: list[str] | None = None,
    cwd: str | None = None,
) -> tuple[list[LogHit], list[SourceHit]]:
    """Match each traceback with its record and find its user frame in the workspace."""
    log_hits: list[LogHit] = []
    source_hits: list[SourceHit] = []
    for tb in sorted(tracebacks, key=lambda t: t.message_line):
        match = match_traceback(ls.kb, tb)
        record_id = match.record.id if match.record else None
        target = _target(ls, tb.user_frame, cwd) if tb.user_frame else None
        where = None
        if target is not None:
            uri, line, text = target
            where = f"{Path(unquote(uri)).name}:{line + 1}"
            source_hits.append(
                SourceHit(
                    uri, line, text, tb.exception_line, record_id, origin, label, log_uri, tb.message_line
                )
            )
        if log_uri is not None:
            logged = log_lines[tb.message_line] if log_lines and tb.message_line < len(log_lines) else None
            log_hits.append(LogHit(log_uri, tb.message_line, logged, tb.exception_line, record_id, where))
    return log_hits, source_hits


# ---------------------------------------------------------------------- hover


def hover(ls: ErrknowServer, uri: str, position: types.Position, markdown: bool) -> types.Hover | None:
    """The record's explanation on a runtime diagnostic's line, in the user's language."""
    wanted = unquote(uri)
    hits: list[LogHit | SourceHit] = [
        hit for key, lines in ls.runtime.logs.items() if unquote(key) == wanted for hit in lines.values()
    ]
    hits += [hit for key, found in ls.runtime.sources.items() if unquote(key) == wanted for hit in found]
    hit = next((h for h in hits if h.line == position.line), None)
    if hit is None:
        return None
    record = ls.kb.get(hit.record_id) if hit.record_id else None
    here = _short(hit.exception_line)
    if record is None:
        text = f"{here}\n\nNo record explains this error."
    else:
        context = Context(here=here, related=ls.kb.signatures)
        text = render(record, context, ls.locale, markdown)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=text))
