"""A captured log or terminal output as pieces for :meth:`TracebackScanner.feed`.

A regular file is read window by window into one reused buffer, which the scanner reads in place
(no fresh memory per window, whose page faults would cost more than the copy). Anything else (a
pipe, a socket, a stream without a file) is read in chunks. UTF-16 (what PowerShell's ``>`` writes)
is re-encoded as UTF-8; a UTF-8 byte-order mark is dropped. A file that grows while it is read is
read to its new end.

A file that shrinks while it is read (log rotation with ``copytruncate`` cuts the file it copied)
ends the read where it was cut: what was read before stands, and ``Capture.shrank`` says how far it
had got and what the file holds now. Files are not mapped: a mapped page of a file cut meanwhile
kills the process (SIGBUS) when it is read, with everything it had found.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from typing import BinaryIO

from errknow_ls.tracebacks.scanner import Chunk

CHUNK_BYTES = 1 << 20
WINDOW_BYTES = 16 << 20
"""One window at a time: its buffer counts in the process's resident memory."""
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Shrink:
    """A file cut while it was read: it had been read to ``read_to``; it now holds ``size`` bytes."""

    read_to: int
    size: int


class Capture:
    """Iterate for the stream's bytes from its current position, in pieces of at most ``window``
    bytes; ``shrank`` is set once the file is found cut below what was read."""

    def __init__(self, stream: BinaryIO, window: int = WINDOW_BYTES) -> None:
        self._stream = stream
        self._window = window
        self.shrank: Shrink | None = None

    def __iter__(self) -> Iterator[Chunk]:
        pieces = self._pieces()
        first = next(pieces, b"")
        if first[:2] in _UTF16_BOMS:
            # Decoded piece by piece: reading the rest at once held a whole log (and its copy) in memory.
            decoder = codecs.getincrementaldecoder("utf-16")("replace")
            for piece in chain([first], pieces):
                yield decoder.decode(piece).encode("utf-8", "replace")
            yield decoder.decode(b"", final=True).encode("utf-8", "replace")
            return
        yield first[3:] if first[:3] == _UTF8_BOM else first
        yield from pieces

    def _pieces(self) -> Iterator[Chunk]:
        yield from self._windows()
        if self.shrank is None:  # after a cut, what follows is the next file's, not this one's
            yield from _read(self._stream)

    def _windows(self) -> Iterator[Chunk]:
        """A regular file, window by window, to its end (the end it has when that is reached); the
        stream is left there for ``_read`` (a non-regular stream is all left to ``_read``)."""
        stream = self._stream
        readinto = getattr(stream, "readinto", None)
        try:
            fd = stream.fileno()
            info = os.fstat(fd)
            position = stream.tell()
        except (OSError, ValueError, io.UnsupportedOperation):
            return
        if readinto is None or not stat.S_ISREG(info.st_mode):
            return
        buffer = bytearray(self._window)
        try:
            while True:
                count = readinto(buffer) or 0
                size = os.fstat(fd).st_size
                if size < position + count:  # cut meanwhile: what this read gave may be the new text
                    self.shrank = Shrink(position, size)
                    return
                if count == 0:
                    return
                position += count
                # The buffer itself when full (the scanner is done with a piece before the next one).
                yield buffer if count == len(buffer) else bytes(memoryview(buffer)[:count])
        finally:
            stream.seek(position)


def _read(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(CHUNK_BYTES):
        yield chunk
