"""The real server, fed protocol garbage over stdio with correct requests in between.

Garbage is ``garbage.Garbage``'s seeded cases: bodies that are not JSON, messages that are not
JSON-RPC, wrong param types, unknown methods, out-of-range positions, documents never opened,
broken headers, huge messages. Every PROBE_EVERY cases a probe asks hover and diagnostics of a
real buggy document: the answers must be the right ones. At the end each request got exactly one
response, every id-null error was earned, nothing was an internal error, and the server shuts
down cleanly with nothing on stderr but one-line warnings.

``ERRKNOW_FUZZ_LONG=1`` (or ``ERRKNOW_LONG=1``) runs a long campaign: more cases, several seeds,
bigger messages. ``ERRKNOW_FUZZ_SEED`` picks the seed.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lsp.session import BUGGY
from tests.reliability.garbage import INTERNAL_ERROR, REQUEST_ERRORS, Case, Garbage
from tests.reliability.wire import Message, Wire, check_probe, frame

LONG = "1" in (os.environ.get("ERRKNOW_FUZZ_LONG"), os.environ.get("ERRKNOW_LONG"))
CASES = 100_000 if LONG else 10_000
SEEDS = [int(os.environ.get("ERRKNOW_FUZZ_SEED", "8"))] + ([9, 10, 11] if LONG else [])
HUGE_BYTES = (64 if LONG else 4) << 20
PROBE_EVERY = 200
log = logging.getLogger(__name__)


@pytest.fixture
def wire(tmp_path: Path) -> Iterator[Wire]:
    server = Wire(tmp_path / "stderr.txt")
    yield server
    server.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "scratch").mkdir(parents=True)
    (root / "train.py").write_text(BUGGY, encoding="utf-8")
    return root


def _error_code(message: Message) -> int | None:
    error = message.get("error")
    return int(error["code"]) if isinstance(error, dict) else None


def _check_answers(wire: Wire, cases: list[Case]) -> None:
    expected_nulls = collections.Counter(code for case in cases for code in case.null_errors)
    nulls = collections.Counter(_error_code(m) for m in wire.received if "id" in m and m["id"] is None)
    assert nulls == expected_nulls, "id-null errors: received != earned"
    for case in cases:
        for msg_id, allowed in case.answered.items():
            responses = wire.responses(msg_id)
            assert len(responses) == 1, (case.kind, msg_id, responses)
            code = _error_code(responses[0])
            assert code is None or code in (allowed or REQUEST_ERRORS), (case.kind, msg_id, responses[0])
        for msg_id in case.unanswered:
            assert wire.responses(msg_id) == [], (case.kind, msg_id)
    internal = [m for m in wire.received if _error_code(m) == INTERNAL_ERROR]
    assert internal == [], "a handler failed"
    shown = [m for m in wire.received if m.get("method") == "window/showMessage" and m["params"]["type"] == 1]
    assert shown == [], "the user was shown an error"


def _campaign(wire: Wire, workspace: Path, seed: int) -> list[Case]:
    wire.initialize(workspace)
    probe = (workspace / "train.py").as_uri()
    wire.open(probe, BUGGY)
    check_probe(wire, probe)
    garbage = Garbage(seed, workspace.as_uri(), probe, HUGE_BYTES)
    cases = [*garbage.huge()]
    for case in cases:
        wire.send_raw(case.data)
    for index, case in enumerate(garbage.cases(CASES), 1):
        cases.append(case)
        wire.send_raw(case.data, case.messages)
        if index % PROBE_EVERY == 0:
            check_probe(wire, probe)
    check_probe(wire, probe)
    last = [msg_id for case in cases for msg_id in case.answered]
    for msg_id in last[-50:]:
        wire.answer(msg_id)  # answered in order of arrival or not: each one, within WAIT
    return cases


@pytest.mark.parametrize("seed", SEEDS)
def test_garbage_between_requests_gets_json_rpc_errors_and_the_real_requests_right_answers(
    wire: Wire, workspace: Path, seed: int
) -> None:
    started = time.monotonic()
    cases = _campaign(wire, workspace, seed)
    for msg_id in [m for case in cases for m in case.answered]:
        wire.answer(msg_id)
    _check_answers(wire, cases)
    assert wire.shutdown_and_exit() == 0
    stderr = wire.stderr_text()
    assert "Traceback" not in stderr, stderr[-3000:]
    kinds = collections.Counter(case.kind for case in cases)
    log.warning(
        "fuzz seed %d: %d messages (%d MB) in %.1f s; cases by kind: %s",
        seed, wire.sent_messages, wire.sent_bytes >> 20, time.monotonic() - started, dict(kinds),
    )  # fmt: skip


def test_requests_after_shutdown_are_refused_until_exit(wire: Wire, workspace: Path) -> None:
    wire.initialize(workspace)
    probe = (workspace / "train.py").as_uri()
    wire.open(probe, BUGGY)
    assert wire.request("shutdown") == {"jsonrpc": "2.0", "id": 2, "result": None}
    for method in ("textDocument/hover", "shutdown", "errknow-fuzz/unknown"):
        response = wire.request(
            method, {"textDocument": {"uri": probe}, "position": {"line": 0, "character": 0}}
        )
        assert _error_code(response) == -32600, response
    wire.notify("textDocument/didClose", {"textDocument": {"uri": probe}})  # a notification: dropped
    wire.send_raw(b"Content-Length: 3\r\n\r\n{x}")
    assert wire.wait_for(lambda m: m.get("id", 0) is None)["error"]["code"] == -32700
    wire.notify("exit")
    assert wire.exit_code() == 0


def test_requests_before_initialize_are_refused_and_initialize_is_taken_once(
    wire: Wire, workspace: Path
) -> None:
    probe = (workspace / "train.py").as_uri()
    early = wire.hover(probe, 0, 0)
    assert _error_code(early) == -32002, early
    wire.open(probe, BUGGY)  # dropped: not initialized yet
    wire.initialize(workspace)
    again = wire.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert _error_code(again) == -32600, again
    pulled = wire.pull(probe)
    assert pulled["result"]["items"] == [], "the didOpen before initialize was dropped"
    wire.open(probe, BUGGY)
    check_probe(wire, probe)
    assert wire.shutdown_and_exit() == 0


def test_messages_json_loads_takes_and_msgspec_refuses_are_taken(wire: Wire, workspace: Path) -> None:
    """The server decodes with msgspec; what it refuses and the standard decoder takes is taken as
    before: lone surrogates in a document's text (an editor's JavaScript strings may hold them), a
    body with a byte order mark, or in UTF-16."""
    wire.initialize(workspace)
    probe = (workspace / "train.py").as_uri()
    wire.open((workspace / "notes.py").as_uri(), "# half an emoji, as an editor may send it: \ud83d\n")
    wire.open(probe, BUGGY)
    check_probe(wire, probe)
    refused = [m for m in wire.received if "id" in m and m["id"] is None]
    assert refused == [], "a message was refused as not JSON"
    hover = {"textDocument": {"uri": probe}, "position": {"line": 0, "character": 0}}
    for msg_id, encoding in ((2**70, "utf-8-sig"), (-1, "utf-16")):
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover", "params": hover})
        wire.send_raw(frame(body.encode(encoding)))
        assert "result" in wire.answer(msg_id), wire.responses(msg_id)
    assert wire.shutdown_and_exit() == 0
    assert "Traceback" not in wire.stderr_text()
