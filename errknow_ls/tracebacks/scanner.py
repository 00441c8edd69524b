"""Find tracebacks in captured output as it arrives: bytes or text, in chunks of any size.

Most of a training log is not a traceback. While no traceback is in progress the scanner jumps from
one header to the next (a ``regex`` search, on a helper thread for a long stretch) and only counts
the newlines in between; lines are decoded and cleaned one by one only from a header until its
traceback ends.
It keeps the unfinished last line and the traceback in progress, nothing else, so a log that grows
costs in proportion to what was appended.
"""

from __future__ import annotations

import copy
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cache

import regex

from errknow_ls.tracebacks.lines import HEADER_TEXT, clean_line
from errknow_ls.tracebacks.model import Traceback
from errknow_ls.tracebacks.reader import TracebackReader

_NEEDLE = HEADER_TEXT.encode()
_PLAIN_NEEDLE = b"Traceback " + _NEEDLE
"""What every header a parser starts on holds once cleaned (Python, exception groups, IPython, rich:
see ``formats.start_parser``). Without escape codes the raw bytes hold it too, and this longer needle
is found about half again as fast; with them only ``(most recent call last)`` is sure to be whole."""
_ESC = b"\x1b"
_COUNT_PIECE = 1 << 16
"""Newlines are counted in pieces this long: a piece and its copy stay in the cache, and their
memory comes from the heap (a copy of 128 KiB or more is a fresh ``mmap`` each time with glibc,
whose page faults made counting four times slower)."""
_SEARCHES = {needle: regex.compile(regex.escape(needle)) for needle in (_NEEDLE, _PLAIN_NEEDLE)}
"""``regex`` finds a literal about a quarter faster than ``bytes.find`` (measured on a training log)."""
_BESIDE = 1 << 20
"""From this many bytes on, a range's first header is looked for on a second thread while this one
counts the range's newlines (a hand-over costs about 0.1 ms)."""
_TWO_CORES = (os.cpu_count() or 1) > 1
MAX_LINE_BYTES = 1 << 20
"""An unfinished line longer than this (a progress bar redrawn for hours without a newline) keeps
only its tail."""


Chunk = bytes | bytearray
"""What ``feed`` reads in place (a bytearray: the buffer a file's window was read into, no copy)."""


def _count_newlines(data: Chunk, start: int, end: int) -> int:
    if end - start < 4096:
        return data[start:end].count(b"\n")
    # Two to three times faster than ``count`` on long runs: ``replace`` finds newlines with memchr.
    count = 0
    for at in range(start, end, _COUNT_PIECE):
        span = data[at : min(at + _COUNT_PIECE, end)]
        count += len(span) - len(span.replace(b"\n", b""))
    return count


def _find_counting(needle: bytes, data: Chunk, pos: int, end: int, beside: bool) -> tuple[int, int]:
    """Where the line of the first ``needle`` in ``data[pos:end]`` starts (-1 if there is none), and
    the newlines before it (or in the whole range).

    ``beside``: search on a helper thread while this one counts the whole range. Where a header is
    found, the newlines after it are counted twice, so callers ask for it only until their range's
    first header, which bounds the waste to one range.
    """
    if not (beside and _TWO_CORES and end - pos >= _BESIDE):
        line = _line_of(data, pos, _search(needle, data, pos, end))
        return line, _count_newlines(data, pos, end if line < 0 else line)
    begun = threading.Event()

    def search() -> int:
        begun.set()
        return _search(needle, data, pos, end)

    found = _helper().submit(search)
    # Waiting lets go of the GIL, so the helper takes it at once and then lets go of it in
    # ``regex``; counting right away kept the GIL, and the helper waited for the whole count.
    begun.wait()
    counted = _count_newlines(data, pos, end)
    line = _line_of(data, pos, found.result())
    return line, counted if line < 0 else counted - _count_newlines(data, line, end)


def _line_of(data: Chunk, pos: int, hit: int) -> int:
    """Where the line holding ``hit`` starts (not before ``pos``); -1 for no hit."""
    return hit if hit < 0 else data.rfind(b"\n", pos, hit) + 1 or pos


def _search(needle: bytes, data: Chunk, pos: int, end: int) -> int:
    # ``concurrent``: ``regex`` lets go of the GIL while it searches (the data does not change).
    found = _SEARCHES[needle].search(data, pos, end, concurrent=True)
    return -1 if found is None else found.start()


@cache
def _helper() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(1, thread_name_prefix="errknow-scan")


os.register_at_fork(after_in_child=_helper.cache_clear)  # a forked child has no helper thread


class TracebackScanner:
    """``feed`` chunks of output as they come; each call returns the tracebacks it completed.

    ``close`` ends the input and returns what was still open; ``pending`` says what ``close``
    would return without ending anything (for a log that is still being written).
    """

    def __init__(self) -> None:
        self._partial = bytearray()
        """The unfinished last line."""
        self._line = 0
        """The index of the next line to read (the one ``_partial`` starts)."""
        self._reader = TracebackReader()
        self._closed = False

    @property
    def lines_read(self) -> int:
        """Lines consumed so far, an unfinished last line not included (until ``close``)."""
        return self._line

    def feed(self, chunk: str | Chunk | memoryview) -> list[Traceback]:
        if self._closed:
            raise ValueError("feed after close")
        data: Chunk
        if isinstance(chunk, str):
            data = chunk.encode("utf-8", "replace")
        elif isinstance(chunk, bytes | bytearray):
            data = chunk
        else:
            data = bytes(chunk)
        found: list[Traceback] = []
        start = 0
        if self._partial:
            newline = data.find(b"\n")
            if newline < 0:
                self._partial += data
                self._trim_partial_line()
                return found
            # Finish the carried line on its own; the rest of the chunk is scanned in place, uncopied.
            start = newline + 1
            first = bytes(self._partial) + data[:start]
            self._partial.clear()
            found += self._scan(first, 0, len(first))
        end = data.rfind(b"\n", start) + 1
        if end > start:
            found += self._scan(data, start, end)
        else:
            end = start
        self._partial += data[end:]
        self._trim_partial_line()
        return found

    def close(self) -> list[Traceback]:
        if self._closed:
            return []
        self._closed = True
        last = bytes(self._partial)
        self._partial.clear()
        found = self._scan(last, 0, len(last)) if last else []
        return found + self._reader.close()

    def pending(self) -> list[Traceback]:
        return copy.deepcopy(self).close()

    def _scan(self, data: Chunk, pos: int, end: int) -> list[Traceback]:
        """Read the lines in ``data[pos:end]``; the last one may lack its newline only at the end."""
        reader = self._reader
        found: list[Traceback] = []
        needle = _NEEDLE if data.find(_ESC, pos, end) >= 0 else _PLAIN_NEEDLE
        beside = True
        while pos < end:
            if not reader.busy(self._line):
                line, newlines = _find_counting(needle, data, pos, end, beside)
                beside = False
                self._line += newlines
                if line < 0:
                    break
                pos = line
            newline = data.find(b"\n", pos, end)
            stop = newline if newline >= 0 else end
            text = data[pos:stop].decode("utf-8", "replace")
            found.extend(reader.feed(clean_line(self._line, text)))
            self._line += 1
            pos = stop + 1
        return found

    def _trim_partial_line(self) -> None:
        partial = self._partial
        if len(partial) <= MAX_LINE_BYTES:
            return
        overwritten = partial.rfind(b"\r")
        if overwritten > 0 and _NEEDLE not in partial[:overwritten]:
            del partial[:overwritten]
        if len(partial) > MAX_LINE_BYTES:
            del partial[: len(partial) - MAX_LINE_BYTES // 2]


def read_tracebacks(text: str | bytes) -> list[Traceback]:
    """Every traceback in ``text``, in the order they start."""
    scanner = TracebackScanner()
    found = scanner.feed(text)
    found += scanner.close()
    return sorted(found, key=lambda tb: tb.start_line)
