"""Logs: documents that are logs (``*.log``, ``output:`` channels...) scanned on open and change,
workspace log files read as they grow; their tracebacks become runtime diagnostics.

Not registered on its own: ``documents`` and ``workspace`` hand their notifications over here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import fnmatch
import logging
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from errknow_ls.lsp import convert, publishing
from errknow_ls.lsp.checked_files import client_path
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from errknow_ls.lsp.output.paths import SKIPPED_DIRS
from errknow_ls.lsp.output.store import Run
from errknow_ls.lsp.output.watched import LogGlobs, WatchedLog
from errknow_ls.lsp.session import Session
from errknow_ls.lsp.snapshots import open_document
from errknow_ls.project import within
from errknow_ls.tracebacks import Traceback, bare_messages, match_traceback, read_tracebacks

log = logging.getLogger(__name__)
LOG_LANGUAGES = frozenset({"log"})
LOG_NAMES = ("*.log", "*.out", "*.err", "nohup.out", "slurm-*.out")
MAX_DOCUMENT_CHARS = 8 << 20
"""An open log longer than this is scanned from this far before its end only."""
BARE_CHARS = 1 << 20
"""Error lines without a traceback are looked for this far before an open log's end only: reading
them costs about 0.5 s a MiB of log (measured on 8 MB logs), where tracebacks cost 0.005 to 0.5 s a MiB."""


def is_log_document(uri: str, language_id: str | None) -> bool:
    if (language_id or "").lower() in LOG_LANGUAGES or uri.startswith("output:"):
        return True
    name = PurePosixPath(unquote(urlparse(uri).path)).name
    return any(fnmatch.fnmatch(name, pattern) for pattern in LOG_NAMES)


def log_run(session: Session, uri: str) -> Run:
    """A log as the run it holds: named by its path in the workspace (or the Output panel)."""
    if uri.startswith("output:"):
        return Run(uri, uri, "output")
    path = to_fs_path(uri) if uri.startswith("file:") else None
    name = unquote(uri)
    if path:
        name = Path(path).name
        for root in session.roots():
            if within(Path(path), root):
                name = Path(path).relative_to(root).as_posix()
                break
    return Run(uri, uri, "log", name)


# ---------------------------------------------------------------------- open documents


def scan_document(session: Session, uri: str) -> None:
    """(Re)scan an open log document whole (its tail, if huge); what it showed before is replaced."""
    document = session.workspace.text_documents.get(unquote(uri))
    if document is None or not is_log_document(uri, document.language_id):
        return
    text = document.source
    skipped = 0
    if len(text) > MAX_DOCUMENT_CHARS:
        cut = text.find("\n", len(text) - MAX_DOCUMENT_CHARS) + 1
        skipped, text = text.count("\n", 0, cut), text[cut:]
    tracebacks = [
        dataclasses.replace(tb, message_line=tb.message_line + skipped) for tb in read_tracebacks(text)
    ]
    tracebacks += explained_bare_lines(session, text, skipped, tracebacks)
    lines = convert.split_lines(document.source) if tracebacks else None
    log_hits, source_hits = output_diagnostics.findings(
        session,
        tracebacks,
        run=log_run(session, document.uri),
        log_uri=document.uri,
        log_lines=lines,
    )
    changed = session.output.drop_origin(document.uri) | session.output.add(log_hits, source_hits)
    publishing.deliver(session, changed)


def explained_bare_lines(
    session: Session, text: str, first_line: int, tracebacks: Sequence[Traceback]
) -> list[Traceback]:
    """Error lines in ``text`` outside its ``tracebacks`` (read from ``text``) that a record explains:
    a message logged without its traceback (``[rank1]: RuntimeError: ...``, a job's last words). The
    tracebacks' lines are read as blank, so no message runs into one. A line no record explains is
    left alone: without a traceback, ``SomeError: ...`` in a log is as often the program's own report
    as an exception."""
    lines = text.split("\n")
    for tb in tracebacks:
        lines[tb.start_line : tb.end_line + 1] = [""] * (min(tb.end_line + 1, len(lines)) - tb.start_line)
    start, size = len(lines), 0
    while start > 0 and size + len(lines[start - 1]) < BARE_CHARS:
        start -= 1
        size += len(lines[start]) + 1
    return [
        message
        for message in bare_messages(session.kb, "\n".join(lines[start:]), first_line + start)
        if match_traceback(session.kb, message).record is not None
    ]


def did_open(session: Session, params: types.DidOpenTextDocumentParams) -> None:
    scan_document(session, params.text_document.uri)


def did_change(session: Session, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    document = session.workspace.text_documents.get(unquote(uri))
    if document is not None and is_log_document(uri, document.language_id):
        scan_document(session, uri)
    elif session.output.sources.get(uri):
        source_edited(session, uri, params.content_changes)


def did_close(session: Session, params: types.DidCloseTextDocumentParams) -> None:
    changed = session.output.drop_origin(params.text_document.uri)
    publishing.deliver(session, changed)


def source_edited(
    session: Session, uri: str, changes: Sequence[types.TextDocumentContentChangeEvent]
) -> None:
    """Runtime diagnostics follow lines moved by edits above them; an edited line loses its own."""
    touched: set[int] = set()
    for change in changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start, end = change.range.start.line, change.range.end.line
            touched |= {hit.line for hit in session.output.sources.get(uri, []) if start <= hit.line <= end}
            session.output.shift_source(uri, end, change.text.count("\n") - (end - start))
    session.output.drop_source_lines(uri, touched)
    document = open_document(session.workspace, uri)
    session.output.drop_edited(uri, convert.split_lines(document.source) if document else [])
    publishing.deliver(session, {uri})


# ---------------------------------------------------------------------- watched files


def watched_changes(session: Session, changes: Sequence[types.FileEvent]) -> list[types.FileEvent]:
    """Take the log files out of a ``didChangeWatchedFiles``, read them; return the other changes."""
    globs = LogGlobs(session.settings.log_globs, session.roots())
    rest = []
    for change in changes:
        path = client_path(change.uri)
        if path and globs.matches(path) and path.suffix != ".py":
            session.spawn(read_log(session, change.uri, path, change.type == types.FileChangeType.Deleted))
        else:
            flagged = next(
                (uri for uri in session.output.sources if unquote(uri) == unquote(change.uri)), None
            )
            if path and flagged and not open_document(session.workspace, flagged):
                _file_edited(session, flagged, path)
            rest.append(change)
    return rest


def _file_edited(session: Session, uri: str, path: Path) -> None:
    """A flagged file that is not open changed on disk (a checkout, another editor): its errors from
    runs stay only on lines that still hold the text they were raised on."""
    try:
        lines = convert.split_lines(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        lines = []  # deleted
    if session.output.drop_edited(uri, lines):
        publishing.deliver(session, {uri})


async def read_log(session: Session, uri: str, path: Path, deleted: bool) -> None:
    """Read what was appended to a watched log; a log open in the editor is the editor's business."""
    if deleted or not path.is_file():
        session.output.watched.pop(uri, None)
        publishing.deliver(session, session.output.drop_origin(uri))
        return
    if unquote(uri) in session.workspace.text_documents:
        return
    watched = session.output.watched.setdefault(uri, WatchedLog(path))
    try:
        poll = await asyncio.get_running_loop().run_in_executor(None, watched.poll)
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return
    session.log_to_client(f"errknow: read {poll.read} bytes of {path.name}", types.MessageType.Log)
    changed = session.output.drop_origin(uri) if poll.restarted else set()
    log_hits, source_hits = output_diagnostics.findings(
        session, poll.tracebacks, run=log_run(session, uri), log_uri=uri
    )
    changed |= session.output.add(log_hits, source_hits)
    publishing.deliver(session, changed)


async def read_workspace_logs(session: Session) -> None:
    """At start (a reload too): the logs the workspace already holds are read, oldest first."""
    globs = LogGlobs(session.settings.log_globs, session.roots())
    loop = asyncio.get_running_loop()
    paths = await loop.run_in_executor(None, globs.find, SKIPPED_DIRS)
    for path in paths:
        uri = from_fs_path(str(path))
        if uri and uri not in session.output.watched:
            session.output.watched[uri] = WatchedLog.from_tail(path)
            await read_log(session, uri, path, deleted=False)
