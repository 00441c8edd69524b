"""Reading a source file as the checker sees it, and writing it back byte-faithfully and atomically.

``--fix`` never loses an edit made meanwhile: the file is read once (a regular file, whole, see
``core.files``), and just before the fixed text replaces it, it is read again and must be the same
file (device, inode, size, modification and change times) with the same bytes; otherwise it is left
as it is and the run says so. Read-only files are not written, and a symlink's target outside the
checked paths is written only when asked.

A file with other names (hard links) is not written unless asked (``--fix-hard-links``): another name
may be a package manager's shared cache (uv and pnpm install by hard links) or a backup made with
``cp -al``, which a fix must not reach unasked. Asked, it is rewritten in place so that every name
sees the fix, and as no rename can replace what several names share, the rewrite is journaled: its
text before and after go to a journal beside it (written, read back, synced) before the first byte
is written over it, and the journal goes once the rewrite is on disk. A run killed inside the rewrite
leaves the journal, and the next ``--fix`` run completes the rewrite from it, when the file holds
what a rewrite stopped part-way leaves (the new text up to some byte, the old one after it), and
otherwise leaves both alone and says so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import io
import json
import os
import re
import stat
import sys
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from errknow_ls.core.files import (
    MAX_SOURCE_BYTES,
    ChangedWhileRead,
    FileStamp,
    ReadFile,
    UnreadableFile,
    read_regular,
)

_NEWLINES = ("\r\n", "\n", "\r")
TEMP_TAG = "errknow-fix"
_TEMP_NAME = re.compile(rf"^\..+\.{TEMP_TAG}-(?P<pid>\d+)-[^/]*\.tmp$")
"""``.<file>.errknow-fix-<pid>-<random>.tmp``: written beside the file, then renamed over it."""
JOURNAL_SUFFIX = ".journal"
_JOURNAL_NAME = re.compile(rf"^\..+\.{TEMP_TAG}-(?P<pid>\d+)-[^/]*\{JOURNAL_SUFFIX}$")
"""``.<file>.errknow-fix-<pid>-<random>.journal``: a hard-linked file's rewrite in place, until done."""
NEWLINE = re.compile(r"\r\n|\r|\n")
"""The line breaks Python's tokenizer knows (``str.splitlines`` knows more: form feed, U+2028, ...)."""


READ_ATTEMPTS = 3
"""Reads of a file that changes while it is read (a writer rewriting it in place), before giving up."""


class SourceFileError(Exception):
    """A checked source file that cannot be read, decoded or written; the message says why."""


CHANGED = "changed since --fix read it"


class SourceChanged(SourceFileError):
    """A file another program changed after ``--fix`` read it: it is not written."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file's text with its line endings kept (as ``newline=""`` reads it), and how to write it back."""

    path: Path
    text: str
    encoding: str
    """As ``tokenize.detect_encoding`` names it: ``utf-8``, ``utf-8-sig`` (a BOM), or a PEP 263 cookie."""
    newline: str
    """The first line ending in the file (``\\n`` when it has none): what inserted lines use."""
    origin: ReadFile | None = None
    """The file as it was read: what it must still be when the fixed text replaces it."""


def read_source_file(path: Path) -> SourceFile:
    read = read_file(path)
    return dataclasses.replace(decode_source(path, read.data), origin=read)


def read_bytes(path: Path) -> bytes:
    return read_file(path).data


def read_file(path: Path) -> ReadFile:
    """A regular file of at most ``MAX_SOURCE_BYTES``, read whole while nothing wrote to it."""
    for attempt in range(READ_ATTEMPTS):
        try:
            return read_regular(path, MAX_SOURCE_BYTES)
        except ChangedWhileRead as exc:
            if attempt == READ_ATTEMPTS - 1:
                raise SourceFileError(f"{exc} ({READ_ATTEMPTS} times): not checked") from exc
        except UnreadableFile as exc:
            raise SourceFileError(str(exc)) from exc
        except OSError as exc:
            raise SourceFileError(exc.strerror or str(exc)) from exc
    raise AssertionError("unreachable")


def decode_source(path: Path, data: bytes) -> SourceFile:
    """The text of ``data`` read from ``path``, decoded as Python reads source."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        # Raised for a bad coding cookie, and for first lines that are not UTF-8 (said below).
        encoding = "utf-8"
        if "encoding declaration" not in str(exc):
            raise SourceFileError(f"cannot decode: {exc}") from exc
    try:
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError) as exc:
        raise SourceFileError(_decode_problem(data, encoding, exc)) from exc
    return SourceFile(path, text, encoding, detect_newline(text))


_LONE_SURROGATE_UTF8 = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")
"""What CESU-8 and WTF-8 write for half of a UTF-16 pair (an editor's lone surrogate)."""


def _decode_problem(data: bytes, encoding: str, exc: Exception) -> str:
    if not isinstance(exc, UnicodeDecodeError):
        return f"cannot decode: {exc}"
    line = data.count(b"\n", 0, exc.start) + 1
    byte = f"byte {exc.start} is {data[exc.start]:#04x}"
    surrogate = data[exc.start : exc.start + 3]
    if encoding == "utf-8" and _LONE_SURROGATE_UTF8.fullmatch(surrogate):
        code_point = surrogate.decode("utf-8", "surrogatepass")
        return (
            f"cannot decode as utf-8: a lone surrogate, U+{ord(code_point):04X} (bytes {surrogate.hex(' ')} "
            f"at line {line}): half of a UTF-16 pair, which UTF-8 has no code for"
        )
    return f"cannot decode as {encoding}: {exc.reason} at line {line} ({byte})"


def detect_newline(text: str) -> str:
    first = NEWLINE.search(text)
    return first.group() if first else "\n"


def with_newline(content: str, newline: str) -> str:
    """Inserted text spelled with the file's line ending."""
    if newline == "\n" or not any(n in content for n in _NEWLINES):
        return content
    return content.replace("\r\n", "\n").replace("\r", "\n").replace("\n", newline)


def write_source(
    source: SourceFile, text: str, inside: Sequence[str] | None = None, *, hard_links: bool = False
) -> None:
    """Replace the file with ``text``, keeping its encoding, mode and (when allowed) owner, if it is
    still what was read; ``inside``: the real paths of the directories a symlinked file's target
    must be in to be written (``None``: anywhere); ``hard_links``: a file with other names is
    rewritten in place, keeping them (else it is not written)."""
    try:
        data = text.encode(source.encoding)
    except UnicodeEncodeError as exc:
        raise SourceFileError(f"cannot encode the fixed text as {source.encoding}: {exc}") from exc
    target = Path(os.path.realpath(source.path))  # write through a symlink, not over it
    if inside is not None and not any(_is_within(str(target), root) for root in inside):
        raise SourceFileError(
            f"a symlink to {target}, outside the checked paths: not written (--fix-symlink-targets writes it)"
        )
    try:
        info = target.stat()
        if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK):
            raise SourceFileError(f"read-only (mode {stat.S_IMODE(info.st_mode):04o}): not written")
        if info.st_nlink > 1 and not hard_links:
            raise SourceFileError(
                f"has {info.st_nlink - 1} other name{'s' if info.st_nlink > 2 else ''} (hard links), "
                "which may be another program's (a package cache, a backup): not written "
                "(--fix-hard-links rewrites it in place, under every name)"
            )
        if info.st_nlink > 1:
            _rewrite_in_place(target, data, source.origin)
        else:
            _replace_atomically(target, data, source.origin)
    except OSError as exc:
        raise SourceFileError(f"cannot write: {exc.strerror or exc}") from exc


def _is_within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _unchanged(target: Path, origin: ReadFile) -> None:
    """Raise ``SourceChanged`` unless ``target`` is, by its stamp and its bytes read again now, the
    file that was read (an editor's save, a writer rewriting it, another ``--fix``)."""
    try:
        now = read_regular(target, max(MAX_SOURCE_BYTES, origin.stamp.size))
    except ChangedWhileRead:
        now = None
    except OSError as exc:
        reason = exc if isinstance(exc, UnreadableFile) else exc.strerror or exc
        raise SourceChanged(f"{CHANGED} ({reason}): not written; run --fix again") from exc
    if now is None or now.stamp != origin.stamp or now.data != origin.data:
        raise SourceChanged(f"{CHANGED} (another program wrote it): not written; run --fix again")


def _replace_atomically(target: Path, data: bytes, origin: ReadFile | None) -> None:
    info = target.stat()
    temp = _write_temp(target, data)
    try:
        temp.chmod(stat.S_IMODE(info.st_mode))
        if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):
                os.chown(temp, info.st_uid, info.st_gid)
        if origin is None:
            os.replace(temp, target)  # noqa: PTH105
        else:
            _unchanged(target, origin)  # the last moment before the rename
            _swap_in(temp, target, origin)
    except _Kept:
        raise
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_directory(target.parent)


def _swap_in(temp: Path, target: Path, origin: ReadFile) -> None:
    """Put ``temp`` in ``target``'s place. Where names can be exchanged atomically (Linux), what was
    in that place is checked once it is out: a save in the instant since the last check is put back,
    not lost. Elsewhere, a rename, and that instant stays open."""
    if not _exchange(temp, target):
        os.replace(temp, target)  # noqa: PTH105
        return
    try:
        out = read_regular(temp, max(MAX_SOURCE_BYTES, origin.stamp.size))
        replaced_what_was_read = _same_version(out.stamp, origin.stamp) and out.data == origin.data
    except OSError:
        replaced_what_was_read = False
    if not replaced_what_was_read:
        try:
            back = _exchange(temp, target)  # theirs back in its place; ours, in temp, is removed
        except OSError:
            back = False
        if not back:
            raise _Kept(f"{CHANGED}, in the instant before it was replaced; what was there is in {temp}")
        raise SourceChanged(f"{CHANGED} (another program wrote it): not written; run --fix again")
    temp.unlink()


class _Kept(SourceChanged):
    """The temporary file holds what another program wrote: it must not be removed."""


def _same_version(a: FileStamp, b: FileStamp) -> bool:
    """The same file, unmodified (a rename changes its change time, not its modification time)."""
    return (a.device, a.inode, a.size, a.mtime_ns) == (b.device, b.inode, b.size, b.mtime_ns)


def _exchange(a: Path, b: Path) -> bool:
    """Swap what the two names hold, atomically (``renameat2`` with ``RENAME_EXCHANGE``); False
    where this system or file system cannot."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes  # noqa: PLC0415 (importing ctypes opens a library: only a --fix that writes does)

    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(error, os.strerror(error), str(b))


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # noqa: PLC0415 (importing ctypes opens a library: only a --fix that writes does)

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not glibc 2.28 or later, or musl
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _rewrite_in_place(target: Path, data: bytes, origin: ReadFile | None) -> None:
    """A file with other names (hard links) keeps its inode: it is rewritten in place, journaled."""
    pending = _pending_journal(target)
    if pending is not None:
        raise SourceChanged(
            f"another --fix run is rewriting it in place, or was killed doing so (its journal {pending} "
            "is beside it): not written; run --fix again once that run has ended"
        )
    old = origin.data if origin is not None else read_file(target).data
    journal = _write_journal(target, old, data)
    if origin is not None:
        try:
            _unchanged(target, origin)
        except BaseException:
            journal.unlink(missing_ok=True)
            raise
    try:
        _write_in_place(target, data)
    except OSError as exc:
        raise SourceFileError(
            f"cannot write: {exc.strerror or exc}; it may be rewritten part-way: the next --fix run "
            f"completes it from {journal.name}"
        ) from exc
    journal.unlink()
    _fsync_directory(target.parent)


def _pending_journal(target: Path) -> str | None:
    """The name of a journal beside ``target`` of another run's rewrite of it in place, if there
    is one: a run still writing it (what was read may be part-way) or one killed whose journal the
    start of this run could not complete (the file changed since). Written over, the file would no
    longer be what the journal can complete or undo."""
    prefix = f".{target.name}.{TEMP_TAG}-"
    try:
        names = sorted(path.name for path in target.parent.iterdir())
    except OSError:
        return None
    return next((n for n in names if n.startswith(prefix) and _JOURNAL_NAME.match(n)), None)


def _write_in_place(target: Path, data: bytes) -> None:
    fd = os.open(target, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class _Journal:
    """What a journal holds: which file (its name beside the journal, device and inode) was being
    rewritten in place, from what, to what."""

    name: str
    device: int
    inode: int
    old: bytes
    new: bytes

    def encode(self) -> bytes:
        header = {
            "name": self.name,
            "device": self.device,
            "inode": self.inode,
            "old": len(self.old),
            "new": len(self.new),
            "sha256": _texts_digest(self.old, self.new),
        }
        return json.dumps(header).encode() + b"\n" + self.old + self.new

    @classmethod
    def decode(cls, data: bytes) -> _Journal:
        """ValueError if ``data`` is not a whole journal: a run killed while it wrote the journal
        leaves it cut anywhere, in the new text too, and a new text cut short written over the file
        would cut the file short. ``_OlderJournal`` for a journal without the sizes and digest that
        tell a whole one (written before they were)."""
        line, _, rest = data.partition(b"\n")
        header = json.loads(line)
        if "new" not in header or "sha256" not in header:
            raise _OlderJournal
        old_size, new_size = int(header["old"]), int(header["new"])
        if old_size < 0 or new_size < 0 or old_size + new_size != len(rest):
            raise ValueError("cut short")
        old, new = rest[:old_size], rest[old_size:]
        if _texts_digest(old, new) != header["sha256"]:
            raise ValueError("not as written")
        name, device, inode = str(header["name"]), int(header["device"]), int(header["inode"])
        return cls(name, device, inode, old, new)


class _OlderJournal(Exception):
    """A journal that cannot show it is whole: kept, with the file, for the user to look at."""


def _texts_digest(old: bytes, new: bytes) -> str:
    import hashlib  # noqa: PLC0415 (on use: only a journaled rewrite needs it)

    hasher = hashlib.sha256(len(old).to_bytes(8, "big"))
    hasher.update(old)
    hasher.update(new)  # fed in turn: the texts are not copied into one
    return hasher.hexdigest()


def _write_journal(target: Path, old: bytes, new: bytes) -> Path:
    info = target.stat()
    encoded = _Journal(target.name, info.st_dev, info.st_ino, old, new).encode()
    journal = _write_temp(target, encoded, JOURNAL_SUFFIX)
    if journal.read_bytes() != encoded:
        journal.unlink(missing_ok=True)
        raise SourceFileError("cannot write: the journal did not read back as written")
    _fsync_directory(target.parent)
    return journal


def complete_interrupted_rewrites(directory: Path) -> list[str]:
    """Finish the in-place rewrites (of hard-linked files) that a killed ``--fix`` run left
    journaled in ``directory`` (the run's process is gone); what was done, one message each."""
    try:
        paths = sorted(directory.iterdir())
    except OSError:
        return []
    journals = [(path, _JOURNAL_NAME.match(path.name)) for path in paths]
    return [
        _complete(path) for path, found in journals if found is not None and not _alive(int(found["pid"]))
    ]


def _complete(journal: Path) -> str:
    kept = f"{journal}: the journal of an interrupted --fix run (the file's text before and after)"
    try:
        found = _Journal.decode(journal.read_bytes())
    except _OlderJournal:
        return f"{kept}: it cannot show it is whole (no sizes and digest): kept, the file left as it is"
    except (OSError, ValueError, KeyError, TypeError):
        journal.unlink(missing_ok=True)  # cut short: the run died writing it, before the file
        return f"{journal}: removed, an unfinished journal of an interrupted --fix run"
    target = journal.parent / found.name
    try:
        info = target.stat()
        now = read_file(target).data
    except (OSError, SourceFileError):
        return f"{kept}: {target} cannot be read: kept"
    if (info.st_dev, info.st_ino) != (found.device, found.inode) or not _part_way(now, found.old, found.new):
        return f"{kept}: {target} was changed since: kept, the file left as it is"
    if now != found.new:
        _write_in_place(target, found.new)
    journal.unlink()
    _fsync_directory(target.parent)
    if now == found.new:
        return f"{target}: an interrupted --fix run had rewritten it whole; its journal removed"
    if now == found.old:
        return f"{target}: an interrupted --fix run had not rewritten it yet: rewritten from its journal"
    return f"{target}: an interrupted --fix run had rewritten it part-way: completed from its journal"


def _part_way(now: bytes, old: bytes, new: bytes) -> bool:
    """Whether ``now`` is what writing ``new`` over ``old`` from the start leaves when stopped at some
    byte ``k``: ``new[:k] + old[k:]``, or ``new[:k]`` once past the end of ``old``, or ``new``."""
    if now in (old, new):
        return True
    agreed = _common_prefix(now, new)
    if len(now) == len(old):
        return _common_suffix_start(now, old) <= agreed
    return len(old) < len(now) <= len(new) and agreed == len(now)


def _common_prefix(a: bytes, b: bytes) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix_start(a: bytes, b: bytes) -> int:
    """The smallest ``m`` with ``a[m:] == b[m:]``, for ``a`` and ``b`` of one length."""
    low, high = 0, len(a)
    while low < high:
        middle = (low + high) // 2
        if a[middle:] == b[middle:]:
            high = middle
        else:
            low = middle + 1
    return low


def _write_temp(target: Path, data: bytes, suffix: str = ".tmp") -> Path:
    """``data`` in a new file beside ``target``, on disk (fsync)."""
    import tempfile  # noqa: PLC0415 (on use: only --fix writes)

    prefix = f".{target.name}.{TEMP_TAG}-{os.getpid()}-"
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=prefix, suffix=suffix)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp


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
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """A process killed but not yet reaped (a killed run's worker whose parent died with it) still
    answers ``kill(pid, 0)``; on Linux its state says it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


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
