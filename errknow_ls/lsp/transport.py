"""The stdio transport: ``Content-Length`` framing over stdin/stdout, in place of pygls' own loop.

pygls 2.1.1 reads stdin in a worker thread and frames messages with one exact regular expression.
A ``Content-Length`` too large to allocate crashed it; a header glued to the previous garbage was
never found again; a thread blocked on stdin kept the process alive after the client was gone.
Here a daemon thread only moves bytes, the framing is forgiving and bounded, and ``hang_up`` ends
the server at once whatever stdin does (see ``lifecycle`` for the parent process watch).

What the frames hold is the protocol's business (``ErrknowProtocol.receive``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import stat
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, BinaryIO

from errknow_ls.lsp.ahead import synced_document
from errknow_ls.lsp.protocol import ErrknowProtocol

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from errknow_ls.lsp.languageserver import ErrknowServer

log = logging.getLogger(__name__)
CHUNK_BYTES = 1 << 20
"""The most one read takes: a 31 MB ``didOpen`` crosses in 31 reads, not 500 (each a hand-over to
the event loop, and on a loaded machine a wait for the processor)."""
QUEUED_CHUNKS = 4
"""Chunks read ahead of the parser (4 MiB): a client that floods us waits, memory does not grow."""
PIPE_BYTES = 1 << 20
"""What stdin's pipe holds, when it is one (Linux; 64 KiB by default, 1 MiB is what an unprivileged
process may ask by default): the editor writes a big message in 1 MiB pieces, not 64 KiB ones."""
GRACE_SECONDS = 1.0
"""How long the end of a session waits for worker threads before exiting without them."""
MAX_HEADER_LINE = 8 << 10
MAX_CONTENT_LENGTH = 1 << 28
"""256 MiB: a larger body is refused (its bytes are then skipped as garbage until the next header)."""
HEADER = b"content-length:"


class Chunks:
    """What ``stdin_chunks`` gives: awaited, the next chunk; ``ready``, one already read, if any."""

    def __init__(self, chunks: asyncio.Queue[bytes], room: threading.Semaphore) -> None:
        self._chunks = chunks
        self._room = room

    async def __call__(self) -> bytes:
        chunk = await self._chunks.get()
        self._room.release()
        return chunk

    def ready(self) -> bytes | None:
        try:
            chunk = self._chunks.get_nowait()
        except asyncio.QueueEmpty:
            return None
        self._room.release()
        return chunk


def stdin_chunks(stream: BinaryIO) -> Chunks:
    """Chunks of ``stream`` (b"" at its end), read by a daemon thread: a read blocked on a stdin
    nobody closes never holds up the exit. The thread reads the file descriptor itself: blocked
    in ``sys.stdin.buffer`` it would hold the buffer's lock, and Python aborts at exit on it.

    The thread outlives the event loop, and a read may end after the loop is gone (an editor
    closes our stdin right after ``exit``). So it hands chunks over as plain callbacks, never as
    coroutines: a coroutine made for a loop that is closed, or closing and dropping what it had
    scheduled, is never awaited, and Python says so on stderr at exit."""
    fd = stream.fileno()
    widen_pipe(fd)
    chunks: asyncio.Queue[bytes] = asyncio.Queue()
    room = threading.Semaphore(QUEUED_CHUNKS)
    loop = asyncio.get_running_loop()

    def pump() -> None:
        chunk = b"x"
        while chunk:
            room.acquire()
            try:
                chunk = os.read(fd, CHUNK_BYTES)
            except OSError:
                chunk = b""
            try:
                loop.call_soon_threadsafe(chunks.put_nowait, chunk)
            except RuntimeError:  # the loop is closed: the server is done
                return

    threading.Thread(target=pump, name="errknow-stdin", daemon=True).start()
    return Chunks(chunks, room)


def widen_pipe(fd: int) -> None:
    """Make the pipe ``fd`` reads hold PIPE_BYTES, if it is a pipe and the system lets us."""
    setting = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    try:
        if setting is not None and stat.S_ISFIFO(os.fstat(fd).st_mode):
            fcntl.fcntl(fd, setting, PIPE_BYTES)
    except OSError as exc:  # over /proc/sys/fs/pipe-max-size, or the user's pipe quota
        log.debug("stdin's pipe keeps its size: %s", exc)


class Outgoing:
    """stdout for pygls; once closed (``exit``) or gone (the client closed its end), writes are dropped:
    work still finishing must not spew tracebacks, nor report each failed write by writing again."""

    def __init__(self, stream: BinaryIO, gone: Callable[[], None]) -> None:
        self._stream = stream
        self._gone = gone
        self.closed = False

    def write(self, data: bytes) -> None:
        if self.closed:
            log.debug("dropped %d bytes: the connection is closed", len(data))
            return
        try:
            self._stream.write(data)
            self._stream.flush()
        except (OSError, ValueError) as exc:
            log.warning("the client stopped reading (%s): hanging up", exc)
            self.closed = True
            self._gone()

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError, ValueError):
            self._stream.close()


class Incoming:
    """What the client sends, as lines and bodies."""

    def __init__(
        self, read: Callable[[], Awaitable[bytes]], ready: Callable[[], bytes | None] | None = None
    ) -> None:
        self._read = read
        self._ready = ready
        """A chunk already read, without waiting (None: none yet)."""
        self._buffer = bytearray()
        self._eof = False

    def ready_frames(self) -> list[tuple[int, bytes]]:
        """The bodies of the complete frames already read, in order, each with where its frame ends
        in the buffer; none is taken (``consume`` does). Only plain frames count: the first that is
        not (garbage, a bad header, one not all here) ends the list."""
        while not self._eof and self._ready is not None and (chunk := self._ready()) is not None:
            self._eof = not chunk
            self._buffer += chunk
        frames: list[tuple[int, bytes]] = []
        buffer, at = self._buffer, 0
        while (length := self._header_length(at)) is not None:
            header_end, size = length
            if len(buffer) < header_end + size:
                break
            at = header_end + size
            frames.append((at, bytes(buffer[header_end:at])))
        return frames

    def _header_length(self, at: int) -> tuple[int, int] | None:
        """Where the header starting at ``at`` ends and its body's length; None unless it is one
        ``Content-Length`` line, any other header lines, then an empty line, all in the buffer."""
        length: int | None = None
        while (end := self._buffer.find(b"\n", at, at + MAX_HEADER_LINE)) >= 0:
            line = self._buffer[at : end + 1]
            at = end + 1
            if not line.strip():
                return None if length is None else (at, length)
            found = content_length(bytes(line))
            if found is not None and (length is not None or not 0 <= found <= MAX_CONTENT_LENGTH):
                return None
            if found is not None:
                length = found
            elif length is None:
                return None  # garbage before a header: the plain path skips it and says so
        return None

    def consume(self, end: int) -> None:
        """Drop the frames up to ``end`` (from ``ready_frames``): they were handled."""
        del self._buffer[:end]

    async def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = await self._read()
        self._eof = not chunk
        self._buffer += chunk
        return bool(chunk)

    async def line(self) -> bytes | None:
        """The next line with its ``\\n``; a longer one than MAX_HEADER_LINE is cut; None at the end."""
        while (end := self._buffer.find(b"\n", 0, MAX_HEADER_LINE)) < 0:
            if len(self._buffer) >= MAX_HEADER_LINE:
                end = MAX_HEADER_LINE - 1
                break
            if not await self._fill():
                if not self._buffer:
                    return None
                end = len(self._buffer) - 1
                break
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    async def exactly(self, size: int) -> bytes | bytearray | None:
        while len(self._buffer) < size:
            if not await self._fill():
                return None
        if size < len(self._buffer) - size:
            with memoryview(self._buffer) as buffered:
                copied = bytes(buffered[:size])
            del self._buffer[:size]
            return copied
        # Most of what is buffered: the buffer itself becomes the body, and only what follows it
        # is copied: a 31 MB body is not copied once more.
        whole, self._buffer = self._buffer, self._buffer[size:]
        del whole[size:]
        return whole


def content_length(line: bytes) -> int | None:
    """The length a ``Content-Length`` header line gives (any case, anywhere in the line), else None."""
    at = line.lower().find(HEADER)
    if at < 0:
        return None
    value = line[at + len(HEADER) :].strip()
    return int(value) if value.isdigit() and len(value) <= 12 else -1


async def next_frame(incoming: Incoming) -> bytes | bytearray | str | None:
    """The next body; a string says why a header was refused; None when stdin ends.

    Lines before a ``Content-Length`` header are skipped (garbage, or a body whose header was lost).
    """
    length: int | None = None
    while True:
        line = await incoming.line()
        if line is None:
            return None
        if length is None:
            length = content_length(line)
            if length is not None and not 0 <= length <= MAX_CONTENT_LENGTH:
                return f"bad Content-Length header: {line[:80]!r}"
            if length is None and line.strip():
                log.debug("skipped %d bytes before a header", len(line))
        elif not line.strip():
            return await incoming.exactly(length)
        elif (again := content_length(line)) is not None:
            return f"a second Content-Length header: {again}"


AHEAD_BYTES = 1 << 20
"""A text notification this large, or an edit of an open document of this many characters, has
the requests right behind it that read other documents answered first (``answer_ahead``): decoding
the one, or copying the text the other makes, holds the interpreter's lock for 50 ms or more."""
AHEAD_SECONDS = 0.05
"""How long those requests may run before the large notification is decoded: time to answer one
from what is known, not to wait for a check."""


async def serve(
    server: ErrknowServer,
    read: Callable[[], Awaitable[bytes]],
    ready: Callable[[], bytes | None] | None = None,
) -> int:
    """Serve until the input ends (0), ``exit`` (0 after ``shutdown``, else 1) or ``hang_up`` (0);
    ``ready`` gives a chunk already read, without waiting, if there is one."""
    incoming = Incoming(read, ready)
    protocol = server.protocol
    assert isinstance(protocol, ErrknowProtocol)
    server.connection = asyncio.current_task()
    try:
        while (frame := await next_frame(incoming)) is not None:
            try:
                if isinstance(frame, str):
                    protocol.refuse_frame(frame)
                    continue
                if (document := _large_document_synced(protocol, frame)) is not None:
                    await _answer_ahead(protocol, incoming, document)
                protocol.receive(frame)
            except (SystemExit, BrokenPipeError):
                raise
            except Exception:  # a bug of ours with one message must not end the session
                log.exception("a message could not be handled")
    except SystemExit as stop:  # pygls' ``exit`` handler
        return stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except asyncio.CancelledError:
        log.info("hung up")
        return 0
    except BrokenPipeError:
        log.info("the client closed its end")
        return 0
    finally:
        server.closed = True
        server.on_close()
    log.info("the client's input ended")
    return 0


def _large_document_synced(protocol: ErrknowProtocol, frame: bytes | bytearray) -> str | None:
    """The document that ``frame`` opens or edits, when handling it holds the interpreter's lock
    for long: a text notification of AHEAD_BYTES or more (decoding it), or an edit of an open
    document that large (applying it copies the whole text)."""
    if len(frame) >= AHEAD_BYTES:
        return synced_document(frame)
    return protocol.edited_large_document(frame, AHEAD_BYTES)


async def _answer_ahead(protocol: ErrknowProtocol, incoming: Incoming, document: str) -> None:
    """Before the large text notification about ``document`` is decoded, the requests right behind
    it that read another document are handled, and given AHEAD_SECONDS to answer."""
    await asyncio.sleep(0)  # chunks the reader thread handed over meanwhile
    answered, end = [], 0
    for frame_end, body in incoming.ready_frames():
        future = protocol.answer_ahead(body, document)
        if future is None:
            break
        answered.append(future)
        end = frame_end
    incoming.consume(end)
    if answered:
        await asyncio.wait(answered, timeout=AHEAD_SECONDS)


def serve_stdio(server: ErrknowServer) -> int:
    async def main() -> int:
        chunks = stdin_chunks(sys.stdin.buffer)
        return await serve(server, chunks, chunks.ready)

    server.protocol.set_writer(Outgoing(sys.stdout.buffer, server.hang_up))
    return run(main())


def serve_tcp(server: ErrknowServer, host: str, port: int) -> int:
    """Listen on ``host:port`` and serve the first client that connects, until it is done."""

    async def main() -> int:
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if done.done() or server.connection is not None:
                writer.close()
                return
            server.protocol.set_writer(writer)
            code = await serve(server, functools.partial(reader.read, CHUNK_BYTES))
            if not done.done():
                done.set_result(code)

        listener = await asyncio.start_server(connected, host, port)
        log.info("listening on %s:%s", host, port)
        async with listener:
            return await done

    return run(main())


def run(main: Coroutine[Any, Any, int]) -> int:
    """``asyncio.run``, except that a check still running in a worker thread when the session is
    over is not waited for: nobody wants its result, and a big file can take a minute.

    asyncio.run would wait for it, and so would Python's exit (it joins the executor's threads):
    when one is still busy after a grace period, the process ends at once, logs and stdio flushed.
    """
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        code = loop.run_until_complete(main)
        if tasks := asyncio.all_tasks(loop):
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        asyncio.set_event_loop(None)
        loop.close()  # the default executor is shut down without waiting
    deadline = time.monotonic() + GRACE_SECONDS
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    if any(
        t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.current_thread()
    ):
        log.warning("a check is still running: exiting without waiting for it")
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    return code
