"""Seeded protocol garbage for the fuzz: each case is the bytes to send and what must come back.

What must come back, by JSON-RPC and LSP:
- a body that is not JSON: one Parse error (-32700) with id null; a header that cannot be used
  (a bad or second ``Content-Length``): the same, and what follows it is skipped;
- a body that is not a JSON-RPC message: one Invalid Request (-32600), with its id if it has a
  usable one, else with id null;
- any request with a usable id: exactly one response, never an internal error (-32603: a handler
  crashed); notifications: nothing, whatever their params.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.reliability.wire import encode, frame

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_ERRORS = frozenset({INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS})
"""What a request may be answered with when its params are wrong (never INTERNAL_ERROR)."""

TWICE = (
    "import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * w).sum()\n"
    "loss.backward()\nloss.backward()\n"
)
"""A script that raises: the same graph backwarded twice."""


@dataclass(slots=True)
class Case:
    kind: str
    data: bytes
    null_errors: list[int] = field(default_factory=list)
    """Codes of the id-null errors this case earns."""
    answered: dict[str, frozenset[int] | None] = field(default_factory=dict)
    """Request ids that must get exactly one response: the error codes allowed (None: any of
    REQUEST_ERRORS, or a result)."""
    unanswered: list[str] = field(default_factory=list)
    """Request ids inside bytes the server must skip: no response."""
    messages: int = 1


class Garbage:
    """Cases for a workspace whose probe document is ``probe`` and scratch documents live in ``root``."""

    def __init__(self, seed: int, root_uri: str, probe: str, huge_bytes: int) -> None:
        self.rng = random.Random(seed)
        self.root = root_uri
        self.probe = probe
        self.huge_bytes = huge_bytes
        self._serial = 0
        self.kinds: list[tuple[Callable[[], Case], int]] = [
            (self.json_garbage, 10),
            (self.envelope, 10),
            (self.wrong_request, 20),
            (self.wrong_notification, 15),
            (self.unknown_method, 8),
            (self.positions, 10),
            (self.unopened, 8),
            (self.headers, 12),
            (self.lifecycle, 3),
            (self.scratch_edits, 4),
            (self.notebooks, 4),
        ]

    def cases(self, count: int) -> Iterator[Case]:
        makers, weights = zip(*self.kinds, strict=True)
        for _ in range(count):
            yield self.rng.choices(makers, weights)[0]()

    def huge(self) -> list[Case]:
        """Messages of ``huge_bytes``: a body that is not JSON, a notification nobody knows, a document."""
        size = self.huge_bytes
        text = "# big\n" + "x = 1\n" * (size // 6)
        uri = f"{self.root}/scratch/huge.txt"
        opened = {"textDocument": {"uri": uri, "languageId": "plaintext", "version": 1, "text": text}}
        return [
            Case("huge", frame(b"{" + b"a" * size), null_errors=[PARSE_ERROR]),
            Case("huge", encode(_note("errknow-fuzz/huge", {"blob": "z" * size}))),
            Case("huge", encode(_note("textDocument/didOpen", opened))),
            Case("huge", encode(_note("textDocument/didClose", {"textDocument": {"uri": uri}}))),
        ]

    # ------------------------------------------------------------------ helpers

    def _id(self) -> str:
        self._serial += 1
        return f"g-{self._serial}"

    def _value(self, depth: int = 0) -> Any:
        rng = self.rng
        choice = rng.randrange(12 if depth < 3 else 8)
        values: list[Callable[[], Any]] = [
            lambda: None,
            lambda: rng.choice([True, False]),
            lambda: rng.randint(-(2**31), 2**31),
            lambda: rng.choice([2**63, -(2**63) - 1, 10**30, -1, 0]),
            lambda: rng.uniform(-1e9, 1e9),
            lambda: self._text(rng.randrange(20)),
            lambda: rng.choice(
                ["", "file:///etc/shadow", "untitled:x", "file://", "::", "\u0000", "é中文😋"]
            ),
            lambda: "x" * rng.randrange(1, 5000),
            lambda: [self._value(depth + 1) for _ in range(rng.randrange(4))],
            lambda: {self._text(5): self._value(depth + 1) for _ in range(rng.randrange(4))},
            lambda: [self._value(depth + 1)],
            lambda: {"uri": self._value(depth + 1), "line": self._value(depth + 1)},
        ]
        return values[choice]()

    def _text(self, length: int) -> str:
        alphabet = string.printable + "é中文😋\u2028\ud7ff"
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    def _mutate(self, value: Any) -> Any:
        """``value`` with one leaf or subtree replaced, dropped, or retyped."""
        rng = self.rng
        if isinstance(value, dict) and value and rng.random() < 0.8:
            key = rng.choice(sorted(value))
            mutated = dict(value)
            if rng.random() < 0.2:
                del mutated[key]
            else:
                mutated[key] = self._mutate(value[key])
            return mutated
        if isinstance(value, list) and value and rng.random() < 0.8:
            index = rng.randrange(len(value))
            return [*value[:index], self._mutate(value[index]), *value[index + 1 :]]
        return self._value()

    def _scratch(self) -> str:
        return f"{self.root}/scratch/s{self.rng.randrange(8)}.py"

    def _position(self) -> dict[str, Any]:
        big = [0, 1, 7, 8, 9, 10**6, 2**31 - 1, 2**32 - 1]
        return {"line": self.rng.choice(big), "character": self.rng.choice(big)}

    def _request(self, kind: str, method: str, params: Any, allowed: frozenset[int] | None = None) -> Case:
        msg_id = self._id()
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        return Case(kind, encode(message), answered={msg_id: allowed})

    # ------------------------------------------------------------------ kinds

    def json_garbage(self) -> Case:
        rng = self.rng
        valid = json.dumps(_note("textDocument/didClose", {"textDocument": {"uri": self._scratch()}}))
        bodies: list[Callable[[], bytes]] = [
            lambda: b"}" + bytes(rng.randrange(256) for _ in range(rng.randrange(200))),
            lambda: valid.encode()[: rng.randrange(1, len(valid) - 1)],
            lambda: b'{"jsonrpc": "2.0", "method": "\xff\xfe"}',
            lambda: b"[" * rng.choice([1000, 100_000]),
            lambda: b"",
            lambda: b'{"jsonrpc": "2.0", "id": 1, "method": "x"} trailing',
            lambda: b"{'jsonrpc': '2.0'}",
            lambda: b'{"a": NaN, "b": }',
        ]
        return Case("json_garbage", frame(rng.choice(bodies)()), null_errors=[PARSE_ERROR])

    def envelope(self) -> Case:
        rng = self.rng
        msg_id = self._id()
        no_id: list[Any] = [
            [],
            [{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}],
            0,
            "hello",
            None,
            True,
            {},
            {"jsonrpc": "2.0"},
            {"jsonrpc": "2.0", "method": 5, "params": {}},
            {"jsonrpc": "2.0", "id": rng.choice([True, 1.5, [1], {"a": 1}, None]), "method": "shutdown"},
            {"jsonrpc": "2.0", "id": [2], "result": None},
        ]
        with_id: list[Any] = [
            {"id": msg_id, "method": "textDocument/hover", "params": {}},
            {"jsonrpc": "1.0", "id": msg_id, "method": "shutdown"},
            {"jsonrpc": 2, "id": msg_id, "method": "exit"},
            {"jsonrpc": "2.0", "id": msg_id, "result": 1, "error": {"code": 1, "message": "x"}},
            {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/didOpen", "params": {}},
        ]
        if rng.random() < 0.5:
            return Case("envelope", encode(rng.choice(no_id)), null_errors=[INVALID_REQUEST])
        allowed = frozenset({INVALID_REQUEST, INVALID_PARAMS})
        return Case("envelope", encode(rng.choice(with_id)), answered={msg_id: allowed})

    def wrong_request(self) -> Case:
        method, params = self.rng.choice(self._request_templates())
        return self._request("wrong_request", method, self._mutate(params))

    def wrong_notification(self) -> Case:
        method, params = self.rng.choice(self._notification_templates())
        return Case("wrong_notification", encode(_note(method, self._mutate(params))))

    def unknown_method(self) -> Case:
        name = self.rng.choice(["$/", "textDocument/", "errknow/", "", "workspace/x"]) + self._text(8)
        if self.rng.random() < 0.5:
            return Case("unknown_method", encode(_note(name, self._value())))
        return self._request("unknown_method", name, self._value(), frozenset({METHOD_NOT_FOUND}))

    def positions(self) -> Case:
        rng = self.rng
        uri = rng.choice([self.probe, self._scratch()])
        where = {"start": self._position(), "end": self._position()}
        requests: list[tuple[str, Any]] = [
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": self._position()}),
            (
                "textDocument/codeAction",
                {"textDocument": {"uri": uri}, "range": where, "context": {"diagnostics": []}},
            ),
            (
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": where,
                    "context": {"diagnostics": [{"range": where, "message": "m", "code": "EK001"}]},
                },
            ),
        ]
        if rng.random() < 0.3:
            change = {"range": where, "text": self._text(rng.randrange(30))}
            scratch = {"uri": self._scratch(), "version": rng.randrange(2, 10**6)}
            params = {"textDocument": scratch, "contentChanges": [change]}
            return Case("positions", encode(_note("textDocument/didChange", params)))
        method, params = rng.choice(requests)
        return self._request("positions", method, params)

    def unopened(self) -> Case:
        uri = self.rng.choice(
            [
                f"{self.root}/never-opened.py",
                "file:///etc/shadow",
                "untitled:Untitled-1",
                "file:///nope/x.log",
            ]
        )
        document = {"uri": uri, "version": 3}
        notes = [
            ("textDocument/didChange", {"textDocument": document, "contentChanges": [{"text": "x = 1\n"}]}),
            ("textDocument/didClose", {"textDocument": {"uri": uri}}),
            ("textDocument/didSave", {"textDocument": {"uri": uri}}),
        ]
        if self.rng.random() < 0.5:
            method, params = self.rng.choice(notes)
            return Case("unopened", encode(_note(method, params)))
        position = {"line": 0, "character": 0}
        requests = [
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": position}),
            ("textDocument/diagnostic", {"textDocument": {"uri": uri}}),
            (
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": {"start": position, "end": position},
                    "context": {"diagnostics": []},
                },
            ),
        ]
        method, params = self.rng.choice(requests)
        return self._request("unopened", method, params)

    def headers(self) -> Case:
        rng = self.rng
        msg_id = self._id()
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "errknow-fuzz/nothing"}).encode()
        handled: dict[str, frozenset[int] | None] = {msg_id: frozenset({METHOD_NOT_FOUND})}
        length = len(body)
        variants: list[Callable[[], Case]] = [
            lambda: Case("headers", b"Content-Type: application/json\r\n\r\n" + body, unanswered=[msg_id]),
            lambda: Case(
                "headers",
                b"Content-Length: %s\r\n\r\n"
                % rng.choice([b"abc", b"-5", b"99999999999999999999", b"1e3", b""])
                + body,
                null_errors=[PARSE_ERROR],
                unanswered=[msg_id],
            ),
            lambda: Case(
                "headers",
                b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (length, length) + body,
                null_errors=[PARSE_ERROR],
                unanswered=[msg_id],
            ),
            lambda: Case(
                "headers",
                b"Content-Length: %d\r\n\r\n" % (length // 2) + body,
                null_errors=[PARSE_ERROR],
                unanswered=[msg_id],
            ),
            lambda: Case("headers", b"content-length: %d\r\n\r\n" % length + body, answered=handled),
            lambda: Case("headers", b"Content-Length: %d\n\n" % length + body, answered=handled),
            lambda: Case(
                "headers",
                b"Content-Length:   %d  \r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
                % length
                + body,
                answered=handled,
            ),
            lambda: Case(
                "headers", b"Content-Length: %d\r\n\r\n" % (length + 7) + body + b" " * 7, answered=handled
            ),
            lambda: Case("headers", b"garbage line\r\n\xff\xfe\r\n" + frame(body), answered=handled),
            lambda: Case(
                "headers", b"x" * rng.choice([100, 20_000]) + b"\r\n" + frame(body), answered=handled
            ),
        ]
        return rng.choice(variants)()

    def lifecycle(self) -> Case:
        rng = self.rng
        if rng.random() < 0.5:
            params: Any = {"processId": None, "rootUri": None, "capabilities": {}}
            return self._request("lifecycle", "initialize", params, frozenset({INVALID_REQUEST}))
        notes: list[tuple[str, Any]] = [
            ("$/cancelRequest", {"id": rng.choice([1, "nope", 10**12])}),
            ("$/setTrace", {"value": rng.choice(["off", "verbose", "loud"])}),
            ("window/workDoneProgress/cancel", {"token": self._text(5)}),
        ]
        method, params = rng.choice(notes)
        return Case("lifecycle", encode(_note(method, params)))

    def scratch_edits(self) -> Case:
        """Scratch documents opened, edited (whole, or in ranges anywhere) and closed, in any order."""
        rng = self.rng
        uri = self._scratch()
        version = rng.randrange(1, 10**6)
        text = rng.choice(
            [
                TWICE,
                self._text(200),
                "Traceback (most recent call last):\n",
            ]
        )
        language = rng.choice(["python", "log", "plaintext"])
        where = {"start": self._position(), "end": self._position()}
        notes = [
            (
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}},
            ),
            (
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
            ),
            (
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": where, "text": text}],
                },
            ),
            ("textDocument/didClose", {"textDocument": {"uri": uri}}),
        ]
        method, params = rng.choice(notes)
        return Case("scratch_edits", encode(_note(method, params)))

    def notebooks(self) -> Case:
        """Notebooks opened, changed (cells added, removed, edited: open or not) and closed, in any order."""
        rng = self.rng
        uri = f"{self.root}/scratch/n{rng.randrange(3)}.ipynb"
        cells = [f"{uri}#c{i}" for i in range(rng.randrange(4))]
        cell = f"{uri}#c{rng.randrange(5)}"
        code = rng.choice([TWICE, self._text(40), ""])
        notebook = {"uri": uri, "notebookType": "jupyter-notebook", "version": rng.randrange(1, 99)}
        texts = [{"uri": c, "languageId": "python", "version": 1, "text": code} for c in cells]
        where = {"start": self._position(), "end": self._position()}
        structure = {
            "array": {
                "start": rng.randrange(5),
                "deleteCount": rng.randrange(5),
                "cells": [{"kind": 2, "document": cell}],
            },
            "didOpen": [{"uri": cell, "languageId": "python", "version": 1, "text": code}]
            if rng.random() < 0.5
            else [],
            "didClose": [{"uri": c} for c in cells[:1]],
        }
        change = {
            "cells": {
                "structure": structure if rng.random() < 0.5 else None,
                "textContent": [
                    {"document": {"uri": cell, "version": 2}, "changes": [{"range": where, "text": code}]}
                ],
            }
        }
        notes: list[tuple[str, Any]] = [
            (
                "notebookDocument/didOpen",
                {
                    "notebookDocument": {**notebook, "cells": [{"kind": 2, "document": c} for c in cells]},
                    "cellTextDocuments": texts,
                },
            ),
            ("notebookDocument/didChange", {"notebookDocument": notebook, "change": change}),
            (
                "notebookDocument/didClose",
                {"notebookDocument": {"uri": uri}, "cellTextDocuments": [{"uri": c} for c in cells]},
            ),
        ]
        method, params = rng.choice(notes)
        return Case("notebooks", encode(_note(method, params)))

    # ------------------------------------------------------------------ templates

    def _request_templates(self) -> list[tuple[str, Any]]:
        uri = self.rng.choice([self.probe, self._scratch()])
        position = {"line": 7, "character": 14}
        where = {"start": position, "end": position}
        diagnostic = {"range": where, "message": "m", "code": "EK001", "data": {"fix": {"edits": []}}}
        return [
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": position}),
            ("textDocument/diagnostic", {"textDocument": {"uri": uri}, "previousResultId": "1.0"}),
            ("workspace/diagnostic", {"previousResultIds": [{"uri": uri, "value": "1.0"}]}),
            (
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": where,
                    "context": {"diagnostics": [diagnostic], "only": ["quickfix"]},
                },
            ),
            ("codeAction/resolve", {"title": "t", "data": {"uri": uri, "version": 1, "fix": None}}),
            ("workspace/executeCommand", {"command": "errknow.explain", "arguments": ["pytorch/x", "zh"]}),
            ("workspace/executeCommand", {"command": "errknow.explain", "arguments": [TRACEBACK]}),
        ]

    def _notification_templates(self) -> list[tuple[str, Any]]:
        uri = self._scratch()
        position = {"line": 1, "character": 0}
        return [
            (
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "x = 1\n"}},
            ),
            (
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [{"range": {"start": position, "end": position}, "text": "y"}],
                },
            ),
            ("textDocument/didClose", {"textDocument": {"uri": uri}}),
            ("workspace/didChangeConfiguration", {"settings": {"errknow": {"scanWorkspace": True}}}),
            (
                "workspace/didChangeWatchedFiles",
                {"changes": [{"uri": f"{self.root}/scratch/w.log", "type": 2}]},
            ),
            ("errknow/terminalOutput", {"text": TRACEBACK, "cwd": "/etc", "source": "term://fuzz"}),
            (
                "notebookDocument/didOpen",
                {
                    "notebookDocument": {
                        "uri": f"{self.root}/n.ipynb",
                        "notebookType": "jupyter-notebook",
                        "version": 1,
                        "cells": [],
                    },
                    "cellTextDocuments": [],
                },
            ),
            ("$/cancelRequest", {"id": "nope"}),
            (
                "workspace/didChangeWorkspaceFolders",
                {"event": {"added": [], "removed": [{"uri": f"{self.root}/scratch", "name": "scratch"}]}},
            ),
        ]


TRACEBACK = """\
Traceback (most recent call last):
  File "/etc/shadow", line 1, in <module>
    loss.backward()
RuntimeError: Trying to backward through the graph a second time (or directly access saved \
tensors after they have already been freed).
"""


def _note(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}
