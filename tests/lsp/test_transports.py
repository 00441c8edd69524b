"""``errknow-ls serve`` over each transport: initialize, initialized, shutdown, exit with a real
client; the exit code is 0 and stderr stays empty (no traceback, no warning), run after run."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import json
import os
import socket
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
import pytest
import pytest_lsp
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from errknow_ls.lsp.transport import PIPE_BYTES, Incoming, next_frame, stdin_chunks
from tests.lsp.session import BUGGY, WAIT
from tests.reliability.wire import frame

SERVE = [sys.executable, "-m", "errknow_ls", "serve"]
RUNS = 10
"""Shutdowns per transport: a race at exit showed in about one of four."""


class StderrClient(LanguageClient):
    """pytest-lsp's client, except that the server's stderr is kept for the test to read, not
    forwarded to ours."""

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        await super(LanguageClient, self).start_io(cmd, *args, **kwargs)


def _make_client() -> StderrClient:
    client = StderrClient()
    register_lsp_features(client, DEFAULT_CLIENT_FEATURES)
    return client


async def _stdio_session(command: list[str], workspace: Path, hang_up: bool) -> tuple[int, str]:
    """One session in ``workspace`` (so the server asks the client things as it starts: settings,
    file watching, progress, whose answers may cross ``shutdown`` and ``exit``); with ``hang_up``
    the client closes the server's stdin right after ``exit``, as VS Code's client does."""
    client = await ClientServerConfig(server_command=command, client_factory=_make_client).start()
    assert isinstance(client, StderrClient)
    server = client._server
    assert server is not None and server.stdin is not None and server.stderr is not None
    try:
        async with asyncio.timeout(WAIT):
            await client.initialize_session(
                types.InitializeParams(
                    capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
                    root_uri=workspace.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
                )
            )
            await client.shutdown_async(None)
            client.exit(None)
            if hang_up:
                server.stdin.close()
            stderr = (await server.stderr.read()).decode("utf-8", "replace")
            return await server.wait(), stderr
    finally:
        await client.stop()  # type: ignore[no-untyped-call]


@pytest.mark.parametrize(
    ("transport", "hang_up"),
    [([], False), (["--stdio"], False), ([], True)],
    ids=["default", "stdio", "stdin-closed-after-exit"],
)
async def test_stdio_sessions_end_cleanly(transport: list[str], hang_up: bool, tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(BUGGY, encoding="utf-8")
    for run in range(RUNS):
        code, stderr = await _stdio_session([*SERVE, *transport], tmp_path, hang_up)
        assert (run, code, stderr) == (run, 0, "")


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


async def _read_message(reader: asyncio.StreamReader) -> dict[str, Any]:
    length = 0
    while (line := await reader.readline()).strip():
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    assert length, "the server closed the connection"
    message: dict[str, Any] = json.loads(await reader.readexactly(length))
    return message


async def _request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, id_: int, method: str, params: Any
) -> dict[str, Any]:
    """Send a request; the response to it (the server's notifications before it are skipped)."""
    writer.write(_frame({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}))
    await writer.drain()
    while (message := await _read_message(reader)).get("id") != id_ or "method" in message:
        if "method" in message and "id" in message:  # a request of the server's: answer it
            writer.write(_frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
    return message


async def _connect(port: int, server: asyncio.subprocess.Process) -> tuple[Any, Any]:
    """Connect once the server listens: it says nothing when it does (stderr stays quiet)."""
    while True:
        try:
            return await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            if server.returncode is not None:
                pytest.fail(f"the server ended before it listened: {server.returncode}")
            await asyncio.sleep(0.05)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _tcp_session() -> tuple[int, str]:
    port = _free_port()
    server = await asyncio.create_subprocess_exec(
        *SERVE, "--tcp", f"127.0.0.1:{port}", stdin=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    try:
        async with asyncio.timeout(WAIT):
            reader, writer = await _connect(port, server)
            initialized = await _request(
                reader, writer, 1, "initialize", {"processId": None, "capabilities": {}}
            )
            assert initialized["result"]["serverInfo"]["name"] == "errknow-ls"
            writer.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            assert (await _request(reader, writer, 2, "shutdown", None))["result"] is None
            writer.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
            await writer.drain()
            assert server.stderr is not None
            stderr = (await server.stderr.read()).decode("utf-8", "replace")
            code = await server.wait()
            writer.close()
            return code, stderr
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()


async def test_tcp_sessions_end_cleanly() -> None:
    for run in range(RUNS):
        code, stderr = await _tcp_session()
        assert (run, code, stderr) == (run, 0, "")


def test_stdin_read_after_the_loop_closed_leaves_no_coroutine_behind() -> None:
    """The stdin thread outlives the session's loop; an editor may close our stdin right after
    ``exit``, when the loop is closing or gone. What the thread read then must vanish quietly
    (it used to leave a ``Queue.put`` coroutine that Python reported as never awaited)."""
    read_end, write_end = os.pipe()
    loop = asyncio.new_event_loop()
    with os.fdopen(read_end, "rb", buffering=0) as stdin, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        async def session() -> list[bytes]:
            get = stdin_chunks(stdin)
            os.write(write_end, b"Content-Length: 2")
            return [await get()]

        assert loop.run_until_complete(session()) == [b"Content-Length: 2"]
        loop.close()
        (pump,) = [t for t in threading.enumerate() if t.name == "errknow-stdin"]
        os.close(write_end)  # the client hangs up: the thread reads the end of stdin, too late
        pump.join(WAIT)
        assert not pump.is_alive()
        gc.collect()
    assert [str(w.message) for w in caught] == []


async def test_stdin_chunks_come_in_order_then_the_end() -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb", buffering=0) as stdin:
        get = stdin_chunks(stdin)
        os.write(write_end, b"one")
        assert await get() == b"one"
        os.write(write_end, b"two")
        os.close(write_end)
        assert [await get(), await get()] == [b"two", b""]


@given(
    bodies=st.lists(st.binary(max_size=200), min_size=1, max_size=6),
    cuts=st.lists(st.integers(min_value=1, max_value=1200), max_size=12),
)
def test_frames_come_out_whole_however_the_stream_is_cut(bodies: list[bytes], cuts: list[int]) -> None:
    """A body that is most of what was read becomes the body without a copy; a smaller one is
    copied out. Either way each body comes out whole, whatever follows it in the same read."""
    stream = b"".join(frame(body) for body in bodies)
    points = sorted({cut for cut in cuts if cut < len(stream)} | {0, len(stream)})
    chunks = iter([stream[start:end] for start, end in itertools.pairwise(points)])

    async def read() -> bytes:
        return next(chunks, b"")

    async def frames() -> list[bytes]:
        incoming, found = Incoming(read), []
        while (body := await next_frame(incoming)) is not None:
            assert not isinstance(body, str), body
            found.append(bytes(body))
        return found

    assert asyncio.run(frames()) == bodies


def _pipe_max_size() -> int:
    with contextlib.suppress(OSError):
        return int(Path("/proc/sys/fs/pipe-max-size").read_text())
    return 0


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are set on Linux only")
@pytest.mark.skipif(_pipe_max_size() < PIPE_BYTES, reason="this system caps pipes below PIPE_BYTES")
async def test_a_stdin_pipe_holds_a_mebibyte() -> None:
    """The editor writes a 31 MB message in 1 MiB pieces, and we read it so (64 KiB by default: 500
    hand-overs, each a wait for the processor on a loaded machine)."""
    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb", buffering=0) as stdin:
        get = stdin_chunks(stdin)
        assert fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ) == PIPE_BYTES
        sent = os.urandom(3 * PIPE_BYTES)

        def write() -> None:
            os.write(write_end, sent)
            os.close(write_end)

        writer = threading.Thread(target=write)
        writer.start()
        received = bytearray()
        while chunk := await get():
            received += chunk
        writer.join(WAIT)
        assert received == sent
