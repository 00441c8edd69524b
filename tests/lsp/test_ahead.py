"""A request on another document right behind a large text notification is answered before that
notification is decoded: which document the notification is about is read from its ends
(``ahead.synced_document``), and the frames already read behind it are found without taking them
(``Incoming.ready_frames``). Whatever the layout, a wrong answer is never a wrong document: None."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errknow_ls.lsp.ahead import HEAD_BYTES, synced_document
from errknow_ls.lsp.transport import Incoming, next_frame
from tests.reliability.wire import frame

URI = "file:///work/train%20loop.py"
TEXT = 'print("a \\"quoted\\" \\\\ backslash")\n' * 2000 + "ends with a backslash \\"
RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}


def _body(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def _open(text: str = TEXT, **extra: Any) -> dict[str, Any]:
    item = {"uri": URI, "languageId": "python", "version": 1, "text": text}
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}, **extra}


LAID_OUT = {
    "method first (VS Code, Neovim)": _open(),
    "method last (pygls)": {"params": _open()["params"], "method": "textDocument/didOpen", "jsonrpc": "2.0"},
    "the text before the URI": {
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {"textDocument": {"text": TEXT, "version": 1, "uri": URI, "languageId": "python"}},
    },
    "a whole-document change": {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": TEXT}]},
    },
    "a change with a range": {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": URI, "version": 2},
            "contentChanges": [{"range": RANGE, "text": TEXT}],
        },
    },
}


@pytest.mark.parametrize("layout", sorted(LAID_OUT))
def test_the_document_of_a_large_text_notification(layout: str) -> None:
    assert synced_document(_body(LAID_OUT[layout])) == URI
    spaced = json.dumps(LAID_OUT[layout], indent=2).encode()
    assert synced_document(spaced) == URI


NOT_ONE = {
    "a request (an id)": _open(id=7),
    "an id after the text": {"params": _open()["params"], "method": "textDocument/didOpen", "id": 1},
    "another method": {**_open(), "method": "workspace/executeCommand"},
    "no method": {"jsonrpc": "2.0", "params": _open()["params"]},
    "the text not a string": _open(text=None),  # type: ignore[arg-type]
    "a text key deeper than a document's": {
        **_open(),
        "params": {"x": {"text": TEXT}, "textDocument": {"uri": URI}},
    },
}


@pytest.mark.parametrize("case", sorted(NOT_ONE))
def test_what_is_not_a_text_notification_has_no_document(case: str) -> None:
    assert synced_document(_body(NOT_ONE[case])) is None


def test_a_head_too_long_or_broken_has_no_document() -> None:
    long_uri = _open()
    long_uri["params"]["textDocument"]["uri"] = "file:///" + "a" * HEAD_BYTES
    assert synced_document(_body(long_uri)) is None
    assert synced_document(_body(_open())[:-1]) is None  # cut short
    assert synced_document(b"[" * 100_000) is None
    assert synced_document(b"\xff\xfe garbage" * 100_000) is None


@given(st.text(max_size=300), st.sampled_from(sorted(LAID_OUT)))
def test_any_text_leaves_the_document_known(text: str, layout: str) -> None:
    """Quotes, backslashes, escapes and surrogates anywhere in the text, its end among them."""
    message = json.loads(json.dumps(LAID_OUT[layout]).replace(json.dumps(TEXT), json.dumps(TEXT + text)))
    assert synced_document(_body(message)) == URI


def test_the_frames_already_read_are_found_and_left() -> None:
    first, second = b'{"id": 1}', b'{"id": 2, "x": "\\r\\n\\r\\n"}'
    stream = frame(first) + frame(second) + frame(b"{}")[:-1]
    chunks = iter([stream])

    async def read() -> bytes:
        return next(chunks, b"")

    async def found() -> tuple[list[tuple[int, bytes]], list[bytes]]:
        incoming = Incoming(read, lambda: next(chunks, None))
        ready = incoming.ready_frames()
        assert incoming.ready_frames() == ready  # nothing was taken
        incoming.consume(ready[0][0])
        rest = []
        while (body := await next_frame(incoming)) is not None:
            assert not isinstance(body, str)
            rest.append(bytes(body))
        return ready, rest

    ready, rest = asyncio.run(found())
    assert [body for _, body in ready] == [first, second]
    assert rest == [second]  # the cut frame never completes


def test_garbage_ends_the_frames_found() -> None:
    chunks = iter([frame(b"{}") + b"garbage\r\n" + frame(b"[]")])
    incoming = Incoming(_never, lambda: next(chunks, None))
    assert [body for _, body in incoming.ready_frames()] == [b"{}"]


async def _never() -> bytes:
    raise AssertionError("ready_frames never waits")
