"""Findings from program output as diagnostics: on the log's message line and on the user's own
source line (a notebook cell for an IPython run), merged with the static check's; and as hover."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import attrs
from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from errknow_ls.core import Position
from errknow_ls.core.translation import language
from errknow_ls.kb.explain import LABELS, Context, render
from errknow_ls.lsp import convert
from errknow_ls.lsp.checking import Result
from errknow_ls.lsp.output.paths import WorkspaceFiles
from errknow_ls.lsp.output.store import LogHit, Run, SourceHit
from errknow_ls.lsp.snapshots import notebook_of
from errknow_ls.tracebacks import Frame, Traceback, match_traceback

if TYPE_CHECKING:
    from errknow_ls.lsp.session import Session

log = logging.getLogger(__name__)
CODE = "runtime"
"""The code column of every finding from a run: what kind of finding it is (the record it matched
rides in ``data``, and hover names it)."""
MESSAGE_CHARS = 200
COMMAND_CHARS = 60
WORDS = {
    "en": {
        "raised": "raised here in {runs}",
        "logged": "the run logged in {log}",
        "terminal": "the run in {terminal} at {time}",
        "command": "the run of {command} at {time}",
        "terminal_n": "terminal {number}",
        "a_terminal": "a terminal",
        "output_panel": "the Output panel",
        "more": "{first} and {count} more",
        "shown_at": "raised in {where}",
        "cell": "{notebook}, cell {cell}, line {line}",
    },
    "zh": {
        "raised": "此处在{runs}中引发",
        "logged": "记录于 {log} 的运行",
        "terminal": " {time} 于{terminal} 的运行",
        "command": " {time} 的 {command} 运行",
        "terminal_n": "终端 {number}",
        "a_terminal": "某个终端",
        "output_panel": "输出面板",
        "more": "{first}及另外 {count} 次运行",
        "shown_at": "引发于 {where}",
        "cell": "{notebook} 第 {cell} 个单元格第 {line} 行",
    },
}
"""The words of runtime diagnostics; hover and explanations have theirs in ``kb.explain``."""


def words(session: Session) -> dict[str, str]:
    return WORDS[language(session.locale)]


def _short(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"


def _data(record_id: str | None, origins: list[str]) -> dict[str, Any]:
    # Deliberately not convert.DiagnosticData: a code action reads static fixes on this line instead.
    return {"runtime": {"record": record_id, "origins": origins}}


def diagnostics(session: Session, uri: str) -> list[types.Diagnostic]:
    """What the runtime shows in ``uri`` (a log or a source file), in the client's units."""
    return merged_into(session, uri, [])


def merged_into(session: Session, uri: str, static: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
    """The static diagnostics of ``uri`` with what runs showed there: a run's error on a line where
    the static check found the same cause (its record) joins that diagnostic, listing the runs;
    any other goes on its line as its own diagnostic, once however many runs raised it."""
    runtime = session.output
    wanted = unquote(uri)
    encoding = session.workspace.position_encoding or types.PositionEncodingKind.Utf16
    said = words(session)
    found = list(static)
    for key, hits in runtime.logs.items():
        if unquote(key) == wanted:
            found += [
                _log_diagnostic(hit, encoding, said) for hit in sorted(hits.values(), key=lambda h: h.line)
            ]
    groups: dict[tuple[int, str | None, str], list[SourceHit]] = {}
    for key, source_hits in runtime.sources.items():
        if unquote(key) == wanted:
            for hit in source_hits:
                groups.setdefault((hit.line, hit.record_id, hit.exception_line), []).append(hit)
    for (line, record_id, _), same in sorted(groups.items(), key=lambda item: item[0][0]):
        index = next((i for i, d in enumerate(found) if _same_cause(d, line, record_id)), None)
        if index is None:
            found.append(_source_diagnostic(uri, same, encoding, said))
        else:
            found[index] = _joined(found[index], uri, same, said)
    return found


def _same_cause(diagnostic: types.Diagnostic, line: int, record_id: str | None) -> bool:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    return (
        record_id is not None
        and data.get("record") == record_id
        and diagnostic.range.start.line <= line <= diagnostic.range.end.line
    )


def _line_range(line: int, text: str | None, encoding: str) -> types.Range:
    if text is None:
        return types.Range(types.Position(line, 0), types.Position(line + 1, 0))
    start = len(text) - len(text.lstrip())
    positions = convert.Positions(text, encoding)
    return types.Range(
        types.Position(line, positions.to_client(Position(0, start)).character),
        types.Position(line, positions.to_client(Position(0, len(text.rstrip()))).character),
    )


def _log_diagnostic(hit: LogHit, encoding: str, said: dict[str, str]) -> types.Diagnostic:
    where = f" ({said['shown_at'].format(where=hit.where)})" if hit.where else ""
    return types.Diagnostic(
        range=_line_range(hit.line, hit.text, encoding),
        message=_short(hit.exception_line) + where,
        # Shown on the user's line too: counted there, as an error, once.
        severity=types.DiagnosticSeverity.Information if hit.where else types.DiagnosticSeverity.Error,
        code=CODE,
        source=convert.SOURCE,
        data=_data(hit.record_id, [hit.uri]),
    )


def run_name(run: Run, said: dict[str, str]) -> str:
    """``the run in terminal 2 at 14:03``, ``the run logged in logs/train.log``."""
    if run.kind == "log":
        return said["logged"].format(log=run.name)
    if run.kind == "output":
        return said["logged"].format(log=said["output_panel"])
    if run.name is None and run.command:  # a terminal of its own (Neovim's `:terminal python x.py`)
        return said["command"].format(command=_quoted(run.command), time=run.started)
    terminal = said["terminal_n"].format(number=run.name) if run.name else said["a_terminal"]
    return said["terminal"].format(terminal=terminal, time=run.started)


def _quoted(command: str) -> str:
    """``python train.py`` as code, on one line and shortened."""
    line = " ".join(command.split())
    return f"`{line if len(line) <= COMMAND_CHARS else line[: COMMAND_CHARS - 1] + '…'}`"


def _runs(hits: Sequence[SourceHit], said: dict[str, str]) -> str:
    first = run_name(hits[-1].run, said)  # the newest
    return said["more"].format(first=first, count=len(hits) - 1) if len(hits) > 1 else first


def _related(
    uri: str, hits: Sequence[SourceHit], said: dict[str, str], *, exception: bool
) -> list[types.DiagnosticRelatedInformation]:
    """One entry per run, newest first: the log's line where it was logged, else the line itself;
    with the exception when the diagnostic's own message does not say it."""
    related = []
    for hit in reversed(hits):
        if hit.log_uri is not None and hit.log_line is not None:
            place = types.Location(
                uri=hit.log_uri,
                range=types.Range(types.Position(hit.log_line, 0), types.Position(hit.log_line, 0)),
            )
        else:
            place = types.Location(
                uri=uri, range=types.Range(types.Position(hit.line, 0), types.Position(hit.line, 0))
            )
        message = said["raised"].format(runs=run_name(hit.run, said))
        if exception:
            message += f": {_short(hit.exception_line)}"
        related.append(types.DiagnosticRelatedInformation(location=place, message=message))
    return related


def _source_diagnostic(
    uri: str, hits: Sequence[SourceHit], encoding: str, said: dict[str, str]
) -> types.Diagnostic:
    newest = hits[-1]
    return types.Diagnostic(
        range=_line_range(newest.line, newest.text, encoding),
        message=f"{_short(newest.exception_line)}\n{said['raised'].format(runs=_runs(hits, said))}",
        severity=types.DiagnosticSeverity.Error,
        code=CODE,
        source=convert.SOURCE,
        related_information=_related(uri, hits, said, exception=False),
        data=_data(newest.record_id, [hit.run.origin for hit in hits]),
    )


def _joined(
    static: types.Diagnostic, uri: str, hits: Sequence[SourceHit], said: dict[str, str]
) -> types.Diagnostic:
    """The static finding, confirmed by runs: one diagnostic, the runs in its related information."""
    data = dict(static.data) if isinstance(static.data, dict) else {}
    data.update(_data(hits[-1].record_id, [hit.run.origin for hit in hits]))
    return attrs.evolve(
        static,
        message=f"{static.message}\n{said['raised'].format(runs=_runs(hits, said))}",
        related_information=[*(static.related_information or []), *_related(uri, hits, said, exception=True)],
        data=data,
    )


def merged(session: Session, result: Result) -> list[types.Diagnostic]:
    return merged_into(session, result.uri, result.diagnostics)


# ---------------------------------------------------------------------- tracebacks -> findings


def _files(session: Session) -> WorkspaceFiles:
    roots = session.roots()
    if session.output.files is None or session.output.files.roots != roots:
        session.output.files = WorkspaceFiles(roots)
    return session.output.files


def _text_of(session: Session, uri: str, path: Path | None) -> str | None:
    document = session.workspace.text_documents.get(unquote(uri))
    if document is not None:
        return str(document.source)
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _target(session: Session, frame: Frame, cwd: str | None) -> tuple[str, int, str] | None:
    """The workspace document and 0-based line of a frame, and the line's text; None if not ours."""
    if frame.line is None or frame.line < 1:
        return None
    line = frame.line - 1
    if frame.cell is not None:
        cell = _cell_uri(session, frame.cell)
        text = _text_of(session, cell, None) if cell else None
        return (
            (cell, line, convert.split_lines(text)[line])
            if cell and text and line < len(convert.split_lines(text))
            else None
        )
    path = _files(session).find(frame.file, cwd)
    if path is None or path.suffix != ".py":
        return None
    uri = from_fs_path(str(path))
    text = _text_of(session, uri, path) if uri else None
    if uri is None or text is None:
        return None
    lines = convert.split_lines(text)
    return (uri, line, lines[line]) if line < len(lines) else None


def place(session: Session, uri: str, line: int) -> str:
    """``train.py:33``; in a notebook ``nb.ipynb, cell 3, line 2`` (code cells counted, as ``check`` does)."""
    notebook = notebook_of(session.workspace, uri)
    if notebook is None:
        return f"{Path(unquote(uri)).name}:{line + 1}"
    code = [cell for cell in notebook.cells if cell.kind == types.NotebookCellKind.Code]
    index = next((i for i, cell in enumerate(code) if unquote(cell.document) == unquote(uri)), None)
    name = Path(unquote(notebook.uri)).name
    if index is None:  # not a code cell (any more)
        return f"{name}:{line + 1}"
    return words(session)["cell"].format(notebook=name, cell=index + 1, line=line + 1)


def _cell_uri(session: Session, count: int) -> str | None:
    """The open notebook cell that ran as ``In[count]``: by the client's execution summary, else by
    the execution counts saved in the notebook file."""
    notebooks = list(session.workspace.notebook_documents.values())
    for notebook in notebooks:
        for cell in notebook.cells:
            summary = cell.execution_summary
            if summary is not None and summary.execution_order == count:
                return str(cell.document)
    for notebook in notebooks:
        path = to_fs_path(notebook.uri)
        if not path or not _files(session).has(Path(path)):
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
    session: Session,
    tracebacks: Iterable[Traceback],
    *,
    run: Run,
    log_uri: str | None,
    log_lines: list[str] | None = None,
    cwd: str | None = None,
) -> tuple[list[LogHit], list[SourceHit]]:
    """Match each traceback with its record and find its user frame in the workspace."""
    log_hits: list[LogHit] = []
    source_hits: list[SourceHit] = []
    for tb in sorted(tracebacks, key=lambda t: t.message_line):
        match = match_traceback(session.kb, tb)
        record_id = match.record.id if match.record else None
        target = _target(session, tb.user_frame, cwd) if tb.user_frame else None
        where = None
        if target is not None:
            uri, line, text = target
            where = place(session, uri, line)
            source_hits.append(
                SourceHit(uri, line, text, tb.exception_line, record_id, run, log_uri, tb.message_line)
            )
        if log_uri is not None:
            logged = log_lines[tb.message_line] if log_lines and tb.message_line < len(log_lines) else None
            log_hits.append(
                LogHit(log_uri, tb.message_line, logged, tb.exception_line, record_id, where, tb.bare)
            )
    return log_hits, source_hits


# ---------------------------------------------------------------------- hover


def hover(session: Session, uri: str, position: types.Position, markdown: bool) -> types.Hover | None:
    """The record's explanation on a runtime diagnostic's line, in the user's language."""
    wanted = unquote(uri)
    hits: list[LogHit | SourceHit] = [
        hit for key, lines in session.output.logs.items() if unquote(key) == wanted for hit in lines.values()
    ]
    hits += [hit for key, found in session.output.sources.items() if unquote(key) == wanted for hit in found]
    hit = next((h for h in hits if h.line == position.line), None)
    if hit is None:
        return None
    record = session.kb.get(hit.record_id) if hit.record_id else None
    here = _short(hit.exception_line)
    if isinstance(hit, LogHit) and hit.bare:
        here = f"{here}\n\n{LABELS[language(session.locale)]['bare']}"
    if record is None:
        text = f"{here}\n\n{LABELS[language(session.locale)]['no_record']}"
    else:
        context = Context(
            here=here, here_quotes_message=True, related=session.kb.signatures(language(session.locale))
        )
        text = render(record, context, session.locale, markdown)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(contents=types.MarkupContent(kind=kind, value=text))
