"""Reading a capture from a file or a stream: windows of a regular file, reads of anything
else, byte-order marks, a file that grows or is cut while it is read. Every route gives the same tracebacks
at the same lines as reading the whole text at once."""

from __future__ import annotations

import io
import mmap
import os
import threading
from pathlib import Path
from typing import BinaryIO

import pytest

from errknow_ls.tracebacks import Capture, Shrink, TracebackScanner, read_tracebacks

WINDOW = mmap.ALLOCATIONGRANULARITY
TRACEBACK = b"""\
Traceback (most recent call last):
  File "/job/train.py", line 7, in <module>
    loss.backward()
RuntimeError: Trying to backward through the graph a second time
"""


def _log(blocks: int) -> bytes:
    """Progress lines with a traceback every so often, tracebacks falling across window edges."""
    out = bytearray()
    for i in range(blocks):
        out += b"\r 10%|#   | 1/10\r 20%|##  | 2/10\n" * (37 + i % 5)
        out += b"epoch %d loss 0.%d\n" % (i, i)
        if i % 7 == 3:
            out += TRACEBACK
    return bytes(out)


def _scan(stream: BinaryIO, window: int = WINDOW) -> list[tuple[int, str]]:
    scanner = TracebackScanner()
    found = []
    for chunk in Capture(stream, window):
        found += scanner.feed(chunk)
    found += scanner.close()
    return sorted((tb.message_line, tb.message) for tb in found)


def _expected(data: bytes) -> list[tuple[int, str]]:
    return sorted((tb.message_line, tb.message) for tb in read_tracebacks(data))


def test_a_file_read_through_small_windows_gives_what_the_whole_text_gives(tmp_path: Path) -> None:
    data = _log(400)
    path = tmp_path / "train.log"
    path.write_bytes(data)
    expected = _expected(data)
    assert len(data) > 4 * WINDOW and len(expected) == 57
    with path.open("rb") as stream:
        assert _scan(stream) == expected


def test_a_pipe_is_read_in_chunks(tmp_path: Path) -> None:
    data = _log(300)
    read_end, write_end = os.pipe()

    def write() -> None:
        os.write(write_end, data)
        os.close(write_end)

    writer = threading.Thread(target=write)
    writer.start()
    with os.fdopen(read_end, "rb") as stream:
        assert _scan(stream) == _expected(data)
    writer.join()


def test_a_stream_without_a_file() -> None:
    data = _log(100)
    assert _scan(io.BytesIO(data)) == _expected(data)


@pytest.mark.parametrize(
    ("bom", "encode"),
    [
        (b"\xef\xbb\xbf", lambda text: text.encode("utf-8")),
        (b"", lambda text: text.encode("utf-16")),  # the codec writes the BOM
        (b"\xfe\xff", lambda text: text.encode("utf-16-be")),
    ],
)
def test_byte_order_marks(tmp_path: Path, bom: bytes, encode: object) -> None:
    data = _log(300)
    path = tmp_path / "train.log"
    path.write_bytes(bom + encode(data.decode()))  # type: ignore[operator]
    with path.open("rb") as stream:
        assert _scan(stream) == _expected(data)


def _scan_changed(path: Path, window: int, mode: str, cut: bool) -> tuple[list[tuple[int, str]], Capture]:
    """Scan ``path``, which another writer opens with ``mode`` (cutting it first, if ``cut``) and
    writes a traceback to once the first window is read; what was found, and the capture."""
    scanner = TracebackScanner()
    found = []
    with path.open("rb") as stream:
        capture = Capture(stream, window)
        for i, chunk in enumerate(capture):
            if i == 0:
                with path.open(mode) as out:
                    if cut:
                        out.truncate(0)
                    out.write(b"later\n" + TRACEBACK)
            found += scanner.feed(chunk)
    found += scanner.close()
    return sorted((tb.message_line, tb.message) for tb in found), capture


def test_a_file_that_grows_while_it_is_read_is_read_to_its_new_end(tmp_path: Path) -> None:
    data = _log(300)
    path = tmp_path / "train.log"
    path.write_bytes(data)
    found, capture = _scan_changed(path, WINDOW, "ab", cut=False)
    assert found == _expected(data + b"later\n" + TRACEBACK)
    assert capture.shrank is None


def test_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    with path.open("rb") as stream:
        assert _scan(stream) == []


@pytest.mark.parametrize("position", [0, 1, WINDOW - 1, WINDOW, 3 * WINDOW + 17])
def test_a_file_read_from_any_position(tmp_path: Path, position: int) -> None:
    """The pieces are the bytes from there, exactly, and give the tracebacks the text gives."""
    data = _log(400)
    path = tmp_path / "train.log"
    path.write_bytes(data)
    with path.open("rb") as stream:
        stream.seek(position)
        assert b"".join(bytes(piece) for piece in Capture(stream, WINDOW)) == data[position:]
        stream.seek(position)
        assert _scan(stream) == _expected(data[position:])


def test_a_file_cut_while_it_is_read_keeps_what_was_read_and_says_so(tmp_path: Path) -> None:
    """Log rotation with copytruncate: the file is cut to nothing after the first window, and its
    writer goes on; what the first window held is found, and the cut is reported."""
    data = _log(400)
    path = tmp_path / "train.log"
    path.write_bytes(data)
    found, capture = _scan_changed(path, 4 * WINDOW, "r+b", cut=True)
    assert found == _expected(data[: 4 * WINDOW])
    assert found
    assert capture.shrank == Shrink(read_to=4 * WINDOW, size=len(b"later\n" + TRACEBACK))
