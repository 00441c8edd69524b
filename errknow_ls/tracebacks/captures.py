"""A captured log or terminal output as pieces for :meth:`TracebackScanner.feed`.

A regular file is mapped window by window and scanned in place: no copy of its bytes is made, which
is a quarter of the time of a scan. Anything else (a pipe, a socket, a stream without a file) is read
in chunks. UTF-16 (what PowerShell's ``>`` writes) is re-encoded as UTF-8; a UTF-8 byte-order mark
is dropped. A file that grows while it is read is read to its new end.

A mapped file that is truncated while it is scanned kills the process (SIGBUS); the CLI reads logs
that are written to, not cut, and the language server reads the logs it watches with plain reads.
"""

from __future__ import annotations

import codecs
import io
import mmap
import os
import stat
from collections.abc import Iterator
from itertools import chain
from typing import BinaryIO

from errknow_ls.tracebacks.scanner import Chunk

CHUNK_BYTES = 1 << 20
WINDOW_BYTES = 16 << 20
"""One mapping at a time: the pages of a window count in the process's resident memory."""
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF8_BOM = b"\xef\xbb\xbf"


def capture_chunks(stream: BinaryIO, window: int = WINDOW_BYTES) -> Iterator[Chunk]:
    """The stream's bytes from its current position, in pieces of at most ``window`` bytes (a
    multiple of ``mmap.ALLOCATIONGRANULARITY``)."""
    pieces = chain(_mapped(stream, window), _read(stream))
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


def _mapped(stream: BinaryIO, window_bytes: int) -> Iterator[Chunk]:
    """Read-only windows over a regular file from the stream's position to its size now; the
    stream is left at that size for ``_read`` to take what was appended since."""
    try:
        fd = stream.fileno()
        info = os.fstat(fd)
        position = stream.tell()
    except (OSError, ValueError, io.UnsupportedOperation):
        return
    if not stat.S_ISREG(info.st_mode) or info.st_size <= position:
        return
    start = position - position % mmap.ALLOCATIONGRANULARITY
    skip = position - start
    for offset in range(start, info.st_size, window_bytes):
        length = min(window_bytes, info.st_size - offset)
        try:
            window = mmap.mmap(fd, length, access=mmap.ACCESS_READ, offset=offset)
        except (OSError, ValueError):
            break  # cut meanwhile: ``_read`` takes what is left from here
        try:
            if hasattr(mmap, "MADV_SEQUENTIAL"):
                window.madvise(mmap.MADV_SEQUENTIAL)
            yield window[skip:] if skip else window  # a copy once, for a stream not at a window's start
            skip = 0
        finally:
            stream.seek(offset + length)
            window.close()


def _read(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(CHUNK_BYTES):
        yield chunk
