"""The server forgets each handler's future once it is done: pygls kept one for every notification
whose handler is a generator (``didOpen``, ``didChange``), for the session's life."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

from errknow_ls.lsp.protocol import ErrknowProtocol
from errknow_ls.lsp.server import create_server
from errknow_ls.lsp.transport import Outgoing


def _body(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode()


async def test_edits_leave_no_handler_futures_behind(tmp_path: Path) -> None:
    server = create_server()
    protocol = server.protocol
    assert isinstance(protocol, ErrknowProtocol)
    protocol.set_writer(Outgoing(io.BytesIO(), lambda: None))
    root = tmp_path.as_uri()
    params: dict[str, Any] = {"processId": None, "rootUri": root, "capabilities": {}}
    protocol.receive(_body({"id": 1, "method": "initialize", "params": params}))
    uri = (tmp_path / "train.py").as_uri()
    document = {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}
    protocol.receive(_body({"method": "textDocument/didOpen", "params": {"textDocument": document}}))
    for version in range(2, 202):
        change = {
            "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}},
            "text": "2",
        }
        edit = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        protocol.receive(_body({"method": "textDocument/didChange", "params": edit}))
    await asyncio.sleep(0)
    assert server.workspace.get_text_document(uri).version == 201
    assert list(protocol._request_futures) == []  # pygls kept one per notification
    server.closed = True
    for task in asyncio.all_tasks() - {asyncio.current_task()}:
        task.cancel()
