"""Reading a file only when it is a regular file, whole and unchanged while it was read.

``stat`` comes before any read, and the file is opened with ``O_NONBLOCK``: a FIFO, a socket or a
device (``/dev/zero``, ``/dev/urandom``, a symlink to one) is refused at once, never read, so it can
neither block a run nor fill its memory. A file over the caller's size limit is refused before a
byte is read. The file is read to the size ``fstat`` gave, then checked: a file whose size,
modification time, change time or inode moved while it was read (a writer rewriting it in place, an
editor's save) was read torn, and is refused too.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20
MAX_SOURCE_BYTES = 8 * MIB
"""Larger Python files are not read, by ``check`` or the server's workspace scan (their name and
size are reported): a file this size takes the checker about ten seconds; one of 20 MB, generated
code, took minutes and gigabytes."""


class UnreadableFile(OSError):
    """A file refused or failed while reading; ``str`` is the reason, for the user."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "cannot read"


class ChangedWhileRead(UnreadableFile):
    """A file that another program changed while it was read (what was read may be torn)."""


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What identifies one version of a file without reading it."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileStamp:
        return cls(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@dataclass(frozen=True, slots=True)
class ReadFile:
    data: bytes
    stamp: FileStamp
    """The file as it was before and after the read (the same, or the read is refused)."""
    mode: int
    """``st_mode`` as read: permission bits and type."""
    links: int
    """``st_nlink``: more than one, and the file has other names (hard links)."""


def describe_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    )
    return next((f"not a regular file: {words}" for test, words in kinds if test(mode)), "not a regular file")


def size_words(size: int) -> str:
    return f"{size // MIB} MiB" if size and size % MIB == 0 else f"{size:,} bytes"


def read_regular(path: Path | str, limit: int) -> ReadFile:
    """The bytes of ``path`` (symlinks followed) if it is a regular file of at most ``limit`` bytes,
    read whole and unchanged; raises ``UnreadableFile`` saying why not, or the ``OSError`` of a
    file that cannot be opened (missing, no permission)."""
    before = os.stat(path)  # noqa: PTH116 (a str or a Path, as given)
    _refuse(before, limit)
    # O_NONBLOCK: a regular file swapped for a FIFO after the stat still cannot block the open.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        opened = os.fstat(fd)
        _refuse(opened, limit)
        if FileStamp.of(opened) != FileStamp.of(before):
            raise ChangedWhileRead("changed while it was read")
        data = _read_exactly(fd, opened.st_size)
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if len(data) != opened.st_size or FileStamp.of(after) != FileStamp.of(opened):
        raise ChangedWhileRead("changed while it was read")
    return ReadFile(data, FileStamp.of(after), after.st_mode, after.st_nlink)


def _refuse(info: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFile(describe_kind(info.st_mode))
    if info.st_size > limit:
        raise UnreadableFile(f"{size_words(info.st_size)}, over the {size_words(limit)} limit: not read")


def _read_exactly(fd: int, size: int) -> bytes:
    """``size`` bytes, or fewer if the file ends first; one byte more if it grew (then the caller
    sees the length differ)."""
    pieces: list[bytes] = []
    left = size + 1
    while left > 0:
        try:
            piece = os.read(fd, min(left, 16 * MIB))
        except BlockingIOError as exc:  # not a regular file after all
            raise UnreadableFile(os.strerror(errno.EAGAIN)) from exc
        if not piece:
            break
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)
