"""Reading a source file as the checker sees it, and writing it back byte-faithfully and atomically."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

_NEWLINES = ("\r\n", "\n", "\r")
TEMP_TAG = "errknow-fix"
_TEMP_NAME = re.compile(rf"^\..+\.{TEMP_TAG}-(?P<pid>\d+)-[^/]*\.tmp$")
"""``.<file>.errknow-fix-<pid>-<random>.tmp``: written beside the file, then renamed over it."""
NEWLINE = re.compile(r"\r\n|\r|\n")
"""The line breaks Python's tokenizer knows (``str.splitlines`` knows more: form feed, U+2028, ...)."""


class SourceError(Exception):
    """A file that cannot be read, decoded or written; the message says why."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file's text with its line endings kept (as ``newline=""`` reads it), and how to write it back."""

    path: Path
    text: str
    encoding: str
    """As ``tokenize.detect_encoding`` names it: ``utf-8``, ``utf-8-sig`` (a BOM), or a PEP 263 cookie."""
    newline: str
    """The first line ending in the file (``\\n`` when it has none): what inserted lines use."""


def read_source(path: Path) -> SourceFile:
    return decode_source(path, read_bytes(path))


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SourceError(exc.strerror or str(exc)) from exc


def content_digest(data: bytes) -> str:
    """What a file's cache entry is keyed by: a hash of its bytes (its name, time and size play no part)."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def decode_source(path: Path, data: bytes) -> SourceFile:
    """The text of ``data`` read from ``path``, decoded as Python reads source."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        # Raised for a bad coding cookie, and for first lines that are not UTF-8 (said below).
        encoding = "utf-8"
        if "encoding declaration" not in str(exc):
            raise SourceError(f"cannot decode: {exc}") from exc
    try:
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as exc:
        raise SourceError(_decode_problem(data, encoding, exc)) from exc
    return SourceFile(path, text, encoding, detect_newline(text))


def _decode_problem(data: bytes, encoding: str, exc: Exception) -> str:
    if not isinstance(exc, UnicodeDecodeError):
        return f"cannot decode: {exc}"
    line = data.count(b"\n", 0, exc.start) + 1
    byte = f"byte {exc.start} is {data[exc.start]:#04x}"
    return f"cannot decode as {encoding}: {exc.reason} at line {line} ({byte})"


def detect_newline(text: str) -> str:
    first = NEWLINE.search(text)
    return first.group() if first else "\n"


def with_newline(content: str, newline: str) -> str:
    """Inserted text spelled with the file's line ending."""
    if newline == "\n" or not any(n in content for n in _NEWLINES):
        return content
    return content.replace("\r\n", "\n").replace("\r", "\n").replace("\n", newline)


def write_source(source: SourceFile, text: str) -> None:
    """Replace the file with ``text`` atomically, keeping its encoding, mode and (when allowed) owner."""
    try:
        data = text.encode(source.encoding)
    except UnicodeEncodeError as exc:
        raise SourceError(f"cannot encode the fixed text as {source.encoding}: {exc}") from exc
    target = source.path.resolve()  # write through a symlink, not over it
    try:
        _replace_atomically(target, data)
    except OSError as exc:
        raise SourceError(f"cannot write: {exc.strerror or exc}") from exc


def _replace_atomically(target: Path, data: bytes) -> None:
    info = target.stat()
    prefix = f".{target.name}.{TEMP_TAG}-{os.getpid()}-"
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=".tmp")
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        temp.chmod(stat.S_IMODE(info.st_mode))
        if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):
                os.chown(temp, info.st_uid, info.st_gid)
        os.replace(temp, target)  # noqa: PTH105 (the test makes os.replace fail)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_directory(target.parent)


def remove_stale_temps(directory: Path) -> list[Path]:
    """Delete the temporary files that a killed ``--fix`` run left in ``directory`` (the process that
    wrote one is gone); a live run's are left alone. Returns what was deleted."""
    removed: list[Path] = []
    try:
        paths = list(directory.iterdir())
    except OSError:
        return removed
    for path in paths:
        found = _TEMP_NAME.match(path.name)
        if found is None or _alive(int(found.group("pid"))):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
