"""The real server over stdio with our own framing: raw bytes in, every message it sends kept.

pytest-lsp's client cannot send malformed headers or bodies, so these tests frame by hand. The
server's stderr goes to a file (a pipe nobody reads would fill up and block it).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tests.lsp.session import BUGGY, BUGGY_LINE, CALL, column
from tests.support import REPO

WAIT = 30.0
"""Seconds any one wait may take: a silent server fails the test instead of hanging it."""
SERVE = [sys.executable, "-m", "errknow_ls", "serve"]
Message = dict[str, Any]
# What a client with pull diagnostics, hover and code actions (with edits inline) declares.
CAPABILITIES: Message = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"didSave": False},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "codeAction": {
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source.fixAll"]}}
        },
        "diagnostic": {"dynamicRegistration": False},
        "publishDiagnostics": {"versionSupport": True},
    },
    "workspace": {"workspaceEdit": {"documentChanges": True}},
}


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def encode(message: Message) -> bytes:
    return frame(json.dumps(message).encode("utf-8"))


class ServerGone(AssertionError):
    pass


class Wire:
    """One server process; ``received`` holds everything it sent, in order."""

    def __init__(
        self,
        stderr: Path,
        command: Sequence[str] = SERVE,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.stderr_path = stderr
        self._stderr = stderr.open("wb")
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=cwd or REPO,
            env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        )
        self.received: list[Message] = []
        self._responses: dict[Any, list[Message]] = {}
        """Responses by id: the fuzz looks up tens of thousands."""
        self.sent_messages = 0
        self.sent_bytes = 0
        self.answers: dict[Any, Any] = {"workspace/configuration": [None]}
        """What the client answers to the server's requests, by method (null when not listed)."""
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._inbox: queue.Queue[Message | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ bytes

    def _read(self) -> None:
        assert self.process.stdout is not None
        stream = self.process.stdout
        try:
            while True:
                length = None
                while (line := stream.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("ascii").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                if not line or length is None:
                    break
                message = json.loads(stream.read(length))
                self._on_message(message)
        except (OSError, ValueError):
            pass
        self._inbox.put(None)

    def _on_message(self, message: Message) -> None:
        if "method" in message and "id" in message:  # the server asks: answer as an editor would
            answer = self.answers.get(message["method"])
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer}, count=False)
        with self._lock:
            self.received.append(message)
            if "method" not in message and isinstance(message.get("id"), int | str | None):
                self._responses.setdefault(message.get("id"), []).append(message)
        self._inbox.put(message)

    def send_raw(self, data: bytes, messages: int = 1) -> None:
        assert self.process.stdin is not None
        with self._lock:
            self.process.stdin.write(data)
            self.process.stdin.flush()
            self.sent_messages += messages
            self.sent_bytes += len(data)

    def send(self, message: Message, count: bool = True) -> None:
        self.send_raw(encode(message), messages=1 if count else 0)

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        with self._lock:
            self.process.stdin.close()

    # ------------------------------------------------------------------ messages

    def wait_for(self, found: Callable[[Message], bool], timeout: float = WAIT, scan: bool = True) -> Message:
        """The first message ``found`` accepts, received already (unless not ``scan``) or still to come."""
        deadline = time.monotonic() + timeout
        seen = None
        if scan:
            with self._lock:
                seen = next((m for m in self.received if found(m)), None)
        while seen is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the server did not send the message waited for")
            try:
                message = self._inbox.get(timeout=left)
            except queue.Empty:
                continue
            if message is None:
                self._inbox.put(None)  # for the next wait too
                raise ServerGone(f"the server closed stdout; stderr:\n{self.stderr_tail()}")
            if found(message):
                seen = message
        return seen

    def next_id(self) -> int:
        return next(self._ids)

    def request(self, method: str, params: Any = None, timeout: float = WAIT) -> Message:
        """Send a request and wait for its response (the whole response message)."""
        msg_id = self.next_id()
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return self.answer(msg_id, timeout)

    def answer(self, msg_id: Any, timeout: float = WAIT) -> Message:
        def arrived(_message: Message) -> bool:
            return bool(self.responses(msg_id))

        # The index, not every message received so far: the fuzz waits on thousands of answers.
        if not self.responses(msg_id):
            self.wait_for(arrived, timeout, scan=False)
        return self.responses(msg_id)[0]

    def responses(self, msg_id: Any) -> list[Message]:
        with self._lock:
            return list(self._responses.get(msg_id, []))

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    # ------------------------------------------------------------------ a session

    def initialize(self, root: Path | None, process_id: int | None = None) -> Message:
        folders = [{"uri": root.as_uri(), "name": root.name}] if root else None
        response = self.request(
            "initialize",
            {
                "processId": process_id,
                "rootUri": root.as_uri() if root else None,
                "workspaceFolders": folders,
                "capabilities": CAPABILITIES,
            },
        )
        assert "result" in response, response
        self.notify("initialized", {})
        return response

    def open(self, uri: str, text: str, language: str = "python", version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}},
        )

    def hover(self, uri: str, line: int, character: int) -> Message:
        return self.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
        )

    def pull(self, uri: str) -> Message:
        return self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})

    def shutdown_and_exit(self) -> int:
        response = self.request("shutdown")
        assert response.get("result", "missing") is None, response
        self.notify("exit")
        return self.exit_code()

    def exit_code(self, timeout: float = WAIT) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"the server did not end; stderr:\n{self.stderr_tail()}") from None

    def stderr_text(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stderr_tail(self, chars: int = 4000) -> str:
        return self.stderr_text()[-chars:]

    def close(self) -> None:
        """Whatever the test did: no process left behind."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._stderr.close()


# ---------------------------------------------------------------------- the probe


def check_probe(wire: Wire, uri: str) -> None:
    """The buggy document still gets its hover and its diagnostic, whatever came before."""
    line = BUGGY.splitlines()[BUGGY_LINE]
    hover = wire.hover(uri, BUGGY_LINE, column("utf-16", line, line.index(CALL) + 2))
    value = (hover.get("result") or {}).get("contents", {}).get("value", "")
    assert "**EK001** `double-backward`" in value, hover
    pulled = wire.pull(uri)
    items = (pulled.get("result") or {}).get("items", [])
    assert [(d["code"], d["range"]["start"]["line"]) for d in items] == [("EK001", BUGGY_LINE)], pulled
