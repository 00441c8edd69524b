"""Faults around the real server: a handler that fails, a client that goes away.

A failing handler is answered with an internal error (a request) or logged (a notification), and
the server goes on serving. The client going away ends the server promptly with exit code 0 and
no traceback: stdin closed (between messages or inside one), stdout no longer read, the editor's
process (``initialize.processId``) gone while stdin stays open. ``exit`` gives 0 after
``shutdown`` and 1 without it, as LSP asks.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lsp.session import BUGGY
from tests.reliability import launch_faulty
from tests.reliability.wire import WAIT, Wire, check_probe, encode

FAULTY = [sys.executable, launch_faulty.__file__]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.py").write_text(BUGGY, encoding="utf-8")
    return root


@pytest.fixture
def started(tmp_path: Path, workspace: Path) -> Iterator[tuple[Wire, str]]:
    """A plain server with the buggy document open and checked."""
    wire = Wire(tmp_path / "stderr.txt")
    wire.initialize(workspace)
    probe = (workspace / "train.py").as_uri()
    wire.open(probe, BUGGY)
    check_probe(wire, probe)
    yield wire, probe
    wire.close()


@pytest.fixture
def faulty(tmp_path: Path, workspace: Path) -> Iterator[tuple[Wire, str]]:
    wire = Wire(tmp_path / "stderr.txt", command=FAULTY)
    wire.initialize(workspace)
    probe = (workspace / "train.py").as_uri()
    wire.open(probe, BUGGY)
    yield wire, probe
    wire.close()


def _clean_end(wire: Wire, code: int = 0) -> None:
    assert wire.exit_code() == code
    assert "Traceback" not in wire.stderr_text(), wire.stderr_tail()


def test_a_failing_request_handler_is_answered_with_an_error_and_the_server_goes_on(
    faulty: tuple[Wire, str],
) -> None:
    wire, probe = faulty
    for method, kind in [
        (launch_faulty.FAIL, "RuntimeError"),
        (launch_faulty.FAIL_ASYNC, "ZeroDivisionError"),
    ]:
        error = wire.request(method, {})["error"]
        assert error["code"] == -32603 and error["message"].startswith(kind), error
        check_probe(wire, probe)
    assert "the async handler failed on purpose" in wire.stderr_text()
    assert wire.shutdown_and_exit() == 0


def test_a_result_that_cannot_be_serialized_is_answered_with_an_error(faulty: tuple[Wire, str]) -> None:
    wire, probe = faulty
    error = wire.request(launch_faulty.UNSERIALIZABLE, {})["error"]
    assert error["code"] == -32603 and "could not be serialized" in error["message"], error
    check_probe(wire, probe)
    assert wire.shutdown_and_exit() == 0


def test_a_failing_notification_handler_is_logged_the_user_told_once_and_the_server_goes_on(
    faulty: tuple[Wire, str],
) -> None:
    wire, probe = faulty
    for _ in range(3):
        wire.notify(launch_faulty.FAIL_NOTIFICATION, {})
        check_probe(wire, probe)
    logged = [
        m
        for m in wire.received
        if m.get("method") == "window/logMessage" and "failed on purpose" in m["params"]["message"]
    ]
    assert len(logged) == 3
    shown = [m for m in wire.received if m.get("method") == "window/showMessage"]
    assert [m["params"]["type"] for m in shown] == [1], "told once, as an error"
    stderr = wire.stderr_text()
    assert stderr.count("RuntimeError: the handler failed on purpose") == 3, stderr
    assert "in _fail" in stderr, "with the traceback"
    assert wire.shutdown_and_exit() == 0


def test_stdin_closed_ends_the_server_with_0(started: tuple[Wire, str]) -> None:
    wire, _ = started
    wire.close_stdin()
    _clean_end(wire)


def test_stdin_closed_during_a_long_check_ends_the_server_without_waiting_for_the_check(
    started: tuple[Wire, str], workspace: Path
) -> None:
    wire, _ = started
    # Hundreds of double backwards: a check of many seconds (the checker is superlinear in them).
    wire.open((workspace / "big.py").as_uri(), BUGGY * 500)
    wire.request("$/errknow-test/roundTrip")  # the didOpen is in: its check runs
    wire.close_stdin()
    _clean_end(wire)


@pytest.mark.parametrize("cut", ["header", "body"])
def test_stdin_closed_inside_a_message_ends_the_server_with_0(started: tuple[Wire, str], cut: str) -> None:
    wire, probe = started
    message = encode({"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover", "params": {"x": probe}})
    at = message.index(b"\r\n\r\n") + (4 + 10 if cut == "body" else -3)
    wire.send_raw(message[:at])
    wire.close_stdin()
    _clean_end(wire)


def test_a_client_that_stops_reading_ends_the_server_with_0(tmp_path: Path, workspace: Path) -> None:
    with (tmp_path / "stderr.txt").open("wb") as stderr:
        server = subprocess.Popen(
            [sys.executable, "-m", "errknow_ls", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        assert server.stdin is not None and server.stdout is not None
        server.stdout.close()  # nobody reads: the server's first answer meets EPIPE
        params: dict[str, object] = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}}
        server.stdin.write(encode({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
        server.stdin.flush()
        try:
            assert server.wait(WAIT) == 0
        finally:
            server.kill()
            server.wait()
            server.stdin.close()
    text = (tmp_path / "stderr.txt").read_text(encoding="utf-8")
    assert "Traceback" not in text, text
    assert "stopped reading" in text, text


def test_the_editor_process_gone_ends_the_server_with_0_while_stdin_stays_open(
    tmp_path: Path, workspace: Path
) -> None:
    editor = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    wire = Wire(tmp_path / "stderr.txt")
    try:
        wire.initialize(workspace, process_id=editor.pid)
        probe = (workspace / "train.py").as_uri()
        wire.open(probe, BUGGY)
        check_probe(wire, probe)
        editor.kill()
        editor.wait(WAIT)
        _clean_end(wire)
        assert wire.process.stdin is not None and not wire.process.stdin.closed
    finally:
        editor.kill()
        editor.wait(WAIT)
        assert editor.stdin is not None
        editor.stdin.close()
        wire.close()


def test_an_editor_process_gone_before_initialize_ends_the_server_with_0(
    tmp_path: Path, workspace: Path
) -> None:
    editor = subprocess.Popen([sys.executable, "-c", "pass"])
    editor.wait(WAIT)
    wire = Wire(tmp_path / "stderr.txt")
    try:
        params: dict[str, object] = {
            "processId": editor.pid,
            "rootUri": workspace.as_uri(),
            "capabilities": {},
        }
        assert "result" in wire.request("initialize", params)
        _clean_end(wire)
    finally:
        wire.close()


@pytest.mark.parametrize(("shutdown", "code"), [(True, 0), (False, 1)])
def test_exit_ends_the_server_with_the_lsp_exit_code(
    started: tuple[Wire, str], shutdown: bool, code: int
) -> None:
    wire, _ = started
    if shutdown:
        assert wire.request("shutdown")["result"] is None
    wire.notify("exit")
    _clean_end(wire, code)
