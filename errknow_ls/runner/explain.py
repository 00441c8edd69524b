"""``errknow-ls explain``: read logs, terminal captures and notebooks; explain the tracebacks in them.

Exit 0 when no traceback matches a record, 1 when one does, 2 when an input could not be read (the
readable ones are still explained). ``--format json`` prints one object per traceback found::

    {"record", "source", "line", "cell", "exception", "message",
     "frames": [{"file", "line", "function"}], "user_frame": {"file", "line"} | null, "bare": bool}

An input without any traceback is read for bare messages (``SomeError: message`` lines, and messages
a record recognises with no exception class in front): ``"bare": true``, no frames, so no source line.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal, TextIO

from errknow_ls.kb import KnowledgeBase
from errknow_ls.runner.explain_text import SourceResult, render_text
from errknow_ls.tracebacks import (
    Capture,
    NotebookError,
    Shrink,
    Traceback,
    TracebackMatch,
    TracebackScanner,
    bare_messages,
    match_tracebacks,
    read_notebook,
)

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2
STDIN = "-"


@dataclass(frozen=True, slots=True)
class ExplainOptions:
    sources: Sequence[str] = (STDIN,)
    """Paths to read; ``-`` is standard input."""
    output_format: Literal["text", "json"] = "text"
    locale: Literal["en", "zh"] = "en"
    records: Sequence[Path] = field(default_factory=list)


class UnreadableInput(Exception):
    """An input of ``explain`` (a log, a notebook, standard input) that could not be read: why."""


@dataclass(frozen=True, slots=True)
class TracebacksRead:
    """The tracebacks (or bare messages) read from one input of ``explain``."""

    tracebacks: list[Traceback]
    notebook: bool = False
    shrank: Shrink | None = None
    """The file was cut while it was read (log rotation): what was read before it is explained."""


BARE_TAIL_BYTES = 4 << 20
"""An input without a traceback is read for bare messages in its last 4 MiB (a crashed run's log
ends with its error; reading all of a large log again would cost what the scan saved)."""


def scan_stream(kb: KnowledgeBase, stream: BinaryIO) -> TracebacksRead:
    """The tracebacks in ``stream``; where it holds none, the bare messages at its end."""
    scanner = TracebackScanner()
    found: list[Traceback] = []
    tail: deque[bytes] = deque()
    kept = 0
    capture = Capture(stream)
    for chunk in capture:
        found += scanner.feed(chunk)
        if not found:
            tail.append(bytes(chunk[-BARE_TAIL_BYTES:]))
            kept += len(tail[-1])
            while kept - len(tail[0]) >= BARE_TAIL_BYTES:
                kept -= len(tail.popleft())
    found += scanner.close()
    if found:
        return TracebacksRead(sorted(found, key=lambda tb: tb.start_line), shrank=capture.shrank)
    text = b"".join(tail)[-BARE_TAIL_BYTES:].decode("utf-8", "replace")
    unfinished = 0 if text.endswith("\n") else 1  # the scanner counts a last line without its newline
    start = max(0, scanner.lines_read - text.count("\n") - unfinished)
    return TracebacksRead(bare_messages(kb, text, start), shrank=capture.shrank)


def read_tracebacks(kb: KnowledgeBase, source: str, stdin: BinaryIO) -> TracebacksRead:
    """The tracebacks (or bare messages) in one input; raises ``UnreadableInput``."""
    if source == STDIN:
        return scan_stream(kb, stdin)
    path = Path(source)
    try:
        if path.suffix.lower() == ".ipynb":
            return TracebacksRead(read_notebook(path.read_bytes()), notebook=True)
        with path.open("rb") as stream:
            return scan_stream(kb, stream)
    except NotebookError as exc:
        raise UnreadableInput(f"{source}: {exc}") from exc
    except OSError as exc:
        raise UnreadableInput(f"{source}: {exc.strerror or exc}") from exc


def shrank_words(shrank: Shrink) -> str:
    return (
        f"the file shrank while it was read (cut to {shrank.size:,} bytes after {shrank.read_to:,} were "
        "read, as log rotation with copytruncate does); the tracebacks read before are explained"
    )


def traceback_json(source: SourceResult, match: TracebackMatch) -> dict[str, Any]:
    tb = match.traceback
    user = tb.user_frame
    return {
        "record": match.record.id if match.record else None,
        "source": source.source,
        "line": None if source.notebook else tb.message_line + 1,
        "cell": tb.cell,
        "exception": tb.exception,
        "message": tb.message,
        "frames": [{"file": f.file, "line": f.line, "function": f.function} for f in tb.frames],
        "user_frame": {"file": user.file, "line": user.line} if user else None,
        "bare": tb.bare,
    }


def render_json(results: Sequence[SourceResult]) -> str:
    items = [traceback_json(result, match) for result in results for match in result.matches]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def run_explain(
    options: ExplainOptions,
    stdin: BinaryIO | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run ``errknow-ls explain`` as ``options`` say; print to ``out`` / ``err``; return the exit code."""
    stdin = stdin or sys.stdin.buffer
    out = out or sys.stdout
    err = err or sys.stderr
    kb = KnowledgeBase.load(options.records)
    for problem in kb.problems:
        print(f"warning: {problem}", file=err)
    told = len(kb.problems)
    results: list[SourceResult] = []
    failed = False
    for source in options.sources or [STDIN]:
        try:
            read = read_tracebacks(kb, source, stdin)
        except UnreadableInput as exc:
            print(f"error: {exc}", file=err)
            failed = True
            continue
        if read.shrank is not None:
            print(f"warning: {source}: {shrank_words(read.shrank)}", file=err)
        results.append(SourceResult(source, match_tracebacks(kb, read.tracebacks), read.notebook))
        for problem in kb.problems[told:]:  # a record disabled while matching (its regex timed out)
            print(f"warning: {problem}", file=err)
        told = len(kb.problems)
    if options.output_format == "json":
        out.write(render_json(results))
    else:
        out.write(render_text(results, options.locale))
    if failed:
        return EXIT_ERROR
    matched = any(match.record is not None for result in results for match in result.matches)
    return EXIT_FOUND if matched else EXIT_OK
