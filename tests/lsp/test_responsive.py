"""The server as a hostile session meets it: directories that move, files pulled while closed, and
an end at any moment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.session import BUGGY, WAIT, Session


async def _closed_file_diagnostics(session: Session, uri: str) -> list[types.Diagnostic]:
    """What this client shows for a file it has not opened: pulled or pushed, as it gets them."""
    if session.pulls_workspace:
        report = await session.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        return [d for i in report.items if i.uri == uri and hasattr(i, "items") for d in i.items]
    latest = [p for p in session.published if p.uri == uri]
    return list(latest[-1].diagnostics) if latest else []


async def test_a_renamed_directory_moves_its_diagnostics(session: Session) -> None:
    """One watched-files event for a directory stands for every file below it."""
    old = session.root / "pkg" / "sub" / "train.py"
    old.parent.mkdir(parents=True)
    old.write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    assert len(await _closed_file_diagnostics(session, old.as_uri())) == 1
    session.refreshes.clear()
    (session.root / "pkg").rename(session.root / "moved")
    new = session.root / "moved" / "sub" / "train.py"
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=(session.root / "pkg").as_uri(), type=types.FileChangeType.Deleted),
                types.FileEvent(uri=(session.root / "moved").as_uri(), type=types.FileChangeType.Created),
            ]
        )
    )
    if session.pulls_workspace:
        await session.refreshed()
    else:
        await session.published_for(old.as_uri(), lambda p: not p.diagnostics)
        await session.published_for(new.as_uri(), lambda p: bool(p.diagnostics))
    assert await _closed_file_diagnostics(session, old.as_uri()) == []
    assert len(await _closed_file_diagnostics(session, new.as_uri())) == 1


async def test_a_deleted_directory_clears_its_files(session: Session) -> None:
    gone = session.root / "old" / "train.py"
    kept = session.root / "kept.py"
    for path in (gone, kept):
        path.parent.mkdir(exist_ok=True)
        path.write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    session.refreshes.clear()
    gone.unlink()
    gone.parent.rmdir()
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=gone.parent.as_uri(), type=types.FileChangeType.Deleted)]
        )
    )
    if session.pulls_workspace:
        await session.refreshed()
    else:
        await session.published_for(gone.as_uri(), lambda p: not p.diagnostics)
    assert await _closed_file_diagnostics(session, gone.as_uri()) == []
    assert len(await _closed_file_diagnostics(session, kept.as_uri())) == 1


async def test_pull_and_push_agree_on_a_file_that_is_not_open(session: Session) -> None:
    """``textDocument/diagnostic`` for a closed file answers what the scan found there."""
    buggy = session.root / "train.py"
    buggy.write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    if not session.pulls:
        pytest.skip("this client does not pull")
    shown = await _closed_file_diagnostics(session, buggy.as_uri())
    pulled = await session.pull(buggy.as_uri())
    assert len(pulled) == 1
    assert [(d.range, d.message, d.code) for d in pulled] == [(d.range, d.message, d.code) for d in shown]


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_stdin_closed_before_the_client_answers_configuration_prints_nothing(tmp_path: Path) -> None:
    """The client goes away right after ``initialized``, while the server waits for its
    ``workspace/configuration`` answer: the server ends cleanly, with nothing on stderr."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "processId": None,
            "rootUri": tmp_path.as_uri(),
            "capabilities": {"workspace": {"configuration": True}},
        },
    }
    with subprocess.Popen(
        [sys.executable, "-m", "errknow_ls", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    ) as server:
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        server.stdin.write(_frame(initialize))
        server.stdin.flush()
        answered = b""
        while b'"id": 1' not in answered and b'"id":1' not in answered:
            chunk = os.read(server.stdout.fileno(), 65536)
            assert chunk, "the server ended before answering initialize"
            answered += chunk
        server.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        server.stdin.flush()
        asked = b""
        while b"workspace/configuration" not in asked:  # the server waits for the answer now
            chunk = os.read(server.stdout.fileno(), 65536)
            assert chunk, "the server ended before asking for its configuration"
            asked += chunk
        server.stdin.close()
        assert server.wait(timeout=WAIT) == 0
        assert server.stderr.read().decode() == ""
