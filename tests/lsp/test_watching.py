"""Tracebacks in logs, watched log files and terminal output become diagnostics on the user's line."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from lsprotocol import types

from errknow_ls.lsp.output.paths import WorkspaceFiles
from errknow_ls.lsp.output.watched import WatchedLog
from tests.lsp.session import BUGGY, BUGGY_LINE, WAIT, Session
from tests.support import REPO

CAPTURE = (REPO / "examples" / "train_run.log").read_text(encoding="utf-8")
"""A real run of examples/rnn_language_model.py: it fails at line 33, ``loss.backward()``."""
MESSAGE_LINE = next(i for i, line in enumerate(CAPTURE.splitlines()) if line.startswith("RuntimeError:"))
SECOND_BACKWARD = CAPTURE.splitlines()[MESSAGE_LINE]
TRAIN = """\
import torch

w = torch.ones(3, requires_grad=True)
loss = (w * w).sum()
loss.backward()
loss.backward()
"""


def traceback(path: str, line: int) -> str:
    return (
        "step 0\nTraceback (most recent call last):\n"
        f'  File "{path}", line {line}, in <module>\n    loss.backward()\n'
        '  File "/opt/conda/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward\n'
        "    torch.autograd.backward(\n"
        f"{SECOND_BACKWARD}\n$ \n"
    )


def runtime(diagnostics: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if isinstance(d.data, dict) and "runtime" in d.data]


def open_log(session: Session, name: str, text: str, language: str = "log") -> str:
    uri = session.uri(name)
    session.versions[uri] = 1
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
        )
    )
    return uri


def terminal(session: Session, text: str, source: str = "term://ws//42:bash", cwd: str | None = None) -> None:
    session.client.protocol.notify("errknow/terminalOutput", {"text": text, "cwd": cwd, "source": source})


async def shown(
    session: Session, uri: str, wanted: Callable[[list[types.Diagnostic]], bool], is_open: bool = False
) -> list[types.Diagnostic]:
    """The runtime diagnostics the editor shows for ``uri``, once ``wanted``: pushed, or pulled (the
    server handles notifications in order, so a pull sent after one sees its effect)."""
    if session.pulls if is_open else session.pulls_workspace:
        async with asyncio.timeout(WAIT):
            while True:
                if is_open:
                    found = runtime(await session.pull(uri))
                else:
                    report = await session.client.workspace_diagnostic_async(
                        types.WorkspaceDiagnosticParams(previous_result_ids=[])
                    )
                    found = runtime(
                        [
                            d
                            for item in report.items
                            if item.uri == uri
                            and isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)
                            for d in item.items
                        ]
                    )
                if wanted(found):
                    return found
                await session.refreshed()
    published = await session.published_for(uri, lambda p: wanted(runtime(list(p.diagnostics))))
    return runtime(list(published.diagnostics))


async def read_bytes(session: Session, name: str, count: int) -> int:
    """Waits for the server's n-th ``read N bytes of NAME`` log message; returns N."""

    def found() -> int | None:
        reads = [m.message for m in session.client.log_messages if m.message.endswith(f" bytes of {name}")]
        return int(re.findall(r"read (\d+) bytes", reads[count - 1])[0]) if len(reads) >= count else None

    return await session.until(types.WINDOW_LOG_MESSAGE, found)


def workspace_source(session: Session) -> Path:
    source = session.root / "examples" / "rnn_language_model.py"
    source.parent.mkdir()
    source.write_text(
        (REPO / "examples" / "rnn_language_model.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    return source


async def test_a_log_document_flags_its_message_line_and_the_source_line(session: Session) -> None:
    source = workspace_source(session)
    await session.start()
    log_uri = open_log(session, "train_run.log", CAPTURE)
    (on_log,) = await shown(session, log_uri, bool, is_open=True)
    assert on_log.range.start.line == MESSAGE_LINE
    assert "rnn_language_model.py:33" in on_log.message
    (on_source,) = await shown(session, source.as_uri(), bool)
    assert on_source.range.start == types.Position(32, 8)
    assert "raised here in the run logged in train_run.log" in on_source.message
    # The code column names what kind of finding it is, not a record id (hover names the record).
    assert on_log.code == on_source.code == "runtime"
    assert on_source.related_information is not None
    assert on_source.related_information[0].location.uri == log_uri
    hover = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(log_uri), types.Position(MESSAGE_LINE, 3))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "retain_graph" in hover.contents.value
    assert hover.contents.value.count("Trying to backward through the graph a second time") == 1  # once


BARE_LOG = """\
2026-12-01 10:00:01 INFO epoch 3 step 1200 loss 0.412
[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered
2026-12-01 10:00:02 INFO rank 1 failed; retrying the step on the next batch
ValueError: unknown scheduler 'cosine2' in config.yaml
Traceback (most recent call last):
  File "/opt/train/train.py", line 88, in <module>
    raise RuntimeError("an illegal memory access was encountered")
RuntimeError: an illegal memory access was encountered
"""
"""A training log where one rank reports a GPU error on one line, without a traceback; a line of the
program's own that names no error a record knows, just before a traceback whose source line quotes a
record's message."""
BARE_LINE = 1
FRAME_SOURCE_LINE = 6


async def hover_text(session: Session, uri: str, line: int) -> str | None:
    hover = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, 30))
    )
    if hover is None:
        return None
    assert isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_hover_on_an_error_line_logged_without_a_traceback_shows_its_record(session: Session) -> None:
    log_file = session.root / "logs" / "train.log"
    log_file.parent.mkdir()
    log_file.write_text(BARE_LOG, encoding="utf-8")
    await session.start()
    change = types.FileEvent(uri=log_file.as_uri(), type=types.FileChangeType.Changed)
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))
    assert await read_bytes(session, "train.log", 1) == len(BARE_LOG.encode())
    log_uri = open_log(session, "logs/train.log", BARE_LOG)
    on_log = await shown(session, log_uri, lambda found: len(found) == 2, is_open=True)
    assert [d.range.start.line for d in on_log] == [BARE_LINE, len(BARE_LOG.splitlines()) - 1]
    assert on_log[0].code == "runtime"  # the kind of finding; the record rides in data, hover names it
    assert isinstance(on_log[0].data, dict)
    assert on_log[0].data["runtime"]["record"] == "pytorch/cuda-illegal-memory-access"
    text = await hover_text(session, log_uri, BARE_LINE)
    assert text is not None
    assert "CUDA_LAUNCH_BLOCKING=1" in text
    assert "without a traceback there are no frames, so no source line" in text
    assert await hover_text(session, log_uri, BARE_LINE + 2) is None  # the program's own ValueError
    assert await hover_text(session, log_uri, FRAME_SOURCE_LINE) is None  # inside the traceback


@pytest.mark.parametrize("profile", ["emacs-29"], indirect=True)
async def test_closing_the_log_takes_its_diagnostics_back(session: Session) -> None:
    source = workspace_source(session)
    await session.start()
    log_uri = open_log(session, "nohup.out", CAPTURE, language="plaintext")
    await shown(session, source.as_uri(), bool)
    session.close(log_uri)
    await shown(session, source.as_uri(), lambda found: not found)


async def test_a_watched_log_is_read_as_it_grows(session: Session) -> None:
    source = workspace_source(session)
    log_file = session.root / "logs" / "run.log"
    log_file.parent.mkdir()
    cut = CAPTURE.index("RuntimeError:")
    log_file.write_text(CAPTURE[:cut], encoding="utf-8")
    await session.start()
    change = types.FileEvent(uri=log_file.as_uri(), type=types.FileChangeType.Changed)
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))
    assert await read_bytes(session, "run.log", 1) == len(CAPTURE[:cut].encode())
    assert runtime(session.client.diagnostics.get(source.as_uri(), [])) == []
    with log_file.open("a", encoding="utf-8") as stream:
        stream.write(CAPTURE[cut:])
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))
    assert await read_bytes(session, "run.log", 2) == len(CAPTURE[cut:].encode())
    (on_source,) = await shown(session, source.as_uri(), bool)
    assert on_source.range.start.line == 32


async def test_terminal_output_from_another_machine_maps_to_the_workspace_file(session: Session) -> None:
    train = session.root / "code" / "train.py"
    train.parent.mkdir()
    train.write_text(TRAIN, encoding="utf-8")
    await session.start()
    terminal(session, traceback("/mnt/job/./code/train.py", 6)[:40])
    terminal(session, traceback("/mnt/job/./code/train.py", 6)[40:])
    (on_source,) = await shown(session, train.as_uri(), bool)
    assert on_source.range.start.line == 5
    # The run, in the user's words: never the editor's internal name for the terminal.
    assert "term://" not in on_source.message
    assert re.search(r"\nraised here in the run in a terminal at \d\d:\d\d$", on_source.message)


async def test_windows_paths_and_a_second_run_replace_the_first(session: Session) -> None:
    train = session.root / "code" / "train.py"
    train.parent.mkdir()
    train.write_text(TRAIN, encoding="utf-8")
    await session.start()
    terminal(session, traceback("C:\\Users\\me\\code\\train.py", 5), source="vscode-terminal://1/bash?run=1")
    await shown(session, train.as_uri(), lambda found: [d.range.start.line for d in found] == [4])
    terminal(session, traceback("C:\\Users\\me\\code\\train.py", 6), source="vscode-terminal://1/bash?run=2")
    await shown(session, train.as_uri(), lambda found: [d.range.start.line for d in found] == [5])


async def test_paths_outside_the_workspace_are_never_read_or_published(session: Session) -> None:
    await session.start()
    terminal(session, traceback("/etc/shadow", 1) + traceback("/etc/passwd", 1), source="term://x")
    terminal(session, "garbage \x1b[31m\r\n", source="")  # no source: ignored, nothing breaks
    # The server is still up and answers; nothing was published on those paths.
    uri = session.open("probe.py", "x = 1\n")
    await session.diagnostics(uri)
    assert not any(p.uri.startswith("file:///etc/") for p in session.published)


async def test_editing_the_flagged_line_clears_it(session: Session) -> None:
    train = session.root / "train.py"
    train.write_text(TRAIN, encoding="utf-8")
    await session.start()
    uri = session.open("train.py", TRAIN)
    terminal(session, traceback("/mnt/job/train.py", 6))
    (flagged,) = await shown(session, uri, bool, is_open=True)
    assert flagged.range.start.line == 5
    end = types.Position(5, len("loss.backward()"))
    session.edit(uri, types.TextDocumentContentChangePartial(range=types.Range(end, end), text="  # fixed"))
    await shown(session, uri, lambda found: not found, is_open=True)


# ---------------------------------------------------------------------- the pieces, directly


def test_the_watcher_reads_only_appended_bytes_and_restarts_on_truncation(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(b"x" * 1000 + b"\n")
    watched = WatchedLog(path)
    assert watched.poll().read == 1001
    with path.open("ab") as stream:
        stream.write(traceback("/w/train.py", 6).encode())
    poll = watched.poll()
    assert poll.read == len(traceback("/w/train.py", 6).encode()) and not poll.restarted
    assert [tb.exception for tb in poll.tracebacks] == ["RuntimeError"]
    assert watched.poll().read == 0
    path.write_bytes(b"new run\n")
    poll = watched.poll()
    assert poll.restarted and poll.read == 8 and poll.tracebacks == []


def test_printed_paths_map_by_the_longest_suffix(tmp_path: Path) -> None:
    for name in ("code/train.py", "other/train.py", "train.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("", encoding="utf-8")
    files = WorkspaceFiles([tmp_path])
    assert files.find("/mnt/job/code/train.py") == tmp_path / "code" / "train.py"
    assert files.find("C:\\Users\\me\\other\\.\\train.py") == tmp_path / "other" / "train.py"
    assert files.find("train.py", cwd=str(tmp_path / "code")) == tmp_path / "code" / "train.py"
    assert files.find("/etc/shadow") is None
    assert files.find("") is None


async def test_the_static_quick_fix_is_offered_on_the_runtime_diagnostic(session: Session) -> None:
    (session.root / "train.py").write_text(BUGGY, encoding="utf-8")
    await session.start()
    uri = session.open("train.py", BUGGY)
    terminal(session, traceback("/mnt/job/train.py", BUGGY_LINE + 1))
    (flagged,) = await shown(session, uri, bool, is_open=True)
    actions = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=flagged.range,
            context=types.CodeActionContext(diagnostics=[flagged]),
        )
    )
    assert actions and any(
        isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix for a in actions
    )
