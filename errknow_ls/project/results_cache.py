"""The results cache that ``check`` and the server share: what checking a text found, by a hash of
its bytes, in one JSON file per *key* under the project's cache directory (``runner.cache`` reads
and writes it for ``check``; the server reads it to publish what it knows before its first check).

A key is the format, the errknow-ls version, a hash of the checker's own sources (``core``,
``analysis``, ``runner``: editing the checker starts a new cache), the Python whose ``ast`` parses,
and the rules selected. An entry names the project's modules (and folders) the check read, with the
hash of each then: it holds only while they still say the same.

Inside the file, ``files`` maps a path to its stat and the hash of its bytes; ``results`` maps that
hash to ``[entry, reads]``: the entry's text (``encode_entry``: findings, errors, cells) and the
numbers of its rows in ``read``, the table of every module or folder an entry read with what it said
and its stat when it last said so (``[key, said, size, mtime_ns, inode, ctime_ns]``). A module that
many files import is one row, looked at once a run, and the many entries that say the same (most
find nothing) are one text, decoded once.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from errknow_ls import __version__
from errknow_ls.core import Finding
from errknow_ls.core.codec import decode_finding, encode_finding
from errknow_ls.core.files import MIB, UnreadableFile, read_regular
from errknow_ls.project.config import ProjectSettings
from errknow_ls.project.rules import RuleSelection

CACHE_DIRNAME = ".errknow_cache"
FORMAT = 5
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by errknow-ls.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
PACKAGE = Path(__file__).resolve().parent.parent
CHECKER_PACKAGES = ("core", "analysis", "runner")
MAX_CACHE_BYTES = 512 * MIB
"""A cache file larger than this is ignored (with a warning) and rewritten."""


@dataclass(frozen=True, slots=True)
class CachedEntry:
    """What checking one text found."""

    findings: list[Finding]
    errors: list[str]
    read: list[tuple[str, str]] = field(default_factory=list)
    """The project's modules the check read, with the hash of each text then."""
    cells: list[int] = field(default_factory=list)
    """A notebook's: the code cell each finding is in (see ``FileResult.cells``)."""


ENTRY_KEYS = frozenset({"findings", "errors", "cells"})
FileStat = tuple[int, int, int, int]
"""What spares reading a file again: its size, ``st_mtime_ns``, ``st_ino`` and ``st_ctime_ns``."""
UNTRUSTED_STAT: FileStat = (-1, -1, -1, -1)
"""Kept for a file modified just before the cache was written, or not yet looked at: equals no stat."""


def file_stat(info: os.stat_result) -> FileStat:
    """The ``FileStat`` of a file's ``os.stat`` result."""
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


ReadRow = list[object]
"""A row of the table of reads: ``[key, said, *FileStat]`` (see the module's docstring)."""


class DamagedEntry(ValueError):
    """An entry that is not what ``encode_entry`` writes."""


def encode_entry(entry: CachedEntry) -> str:
    """What an entry says of its text; what it read is kept beside it (the table of reads)."""
    data: dict[str, object] = {
        "findings": [encode_finding(f) for f in entry.findings],
        "errors": entry.errors,
    }
    if entry.cells:
        data["cells"] = entry.cells
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def decode_entry(raw: str, read: Sequence[tuple[str, str]] = ()) -> CachedEntry:
    """What ``encode_entry`` wrote, every type checked, with what it ``read``; raises ``ValueError``
    otherwise."""
    data = json.loads(raw)
    if type(data) is not dict or not {"findings", "errors"} <= set(data) <= ENTRY_KEYS:
        raise DamagedEntry(raw)
    findings, errors = data["findings"], data["errors"]
    cells = data.get("cells", [])
    if type(cells) is not list or any(type(c) is not int for c in cells):
        raise DamagedEntry(raw)
    if type(findings) is list and len(cells) not in (0, len(findings)):
        raise DamagedEntry(raw)
    if type(findings) is not list or type(errors) is not list or any(type(e) is not str for e in errors):
        raise DamagedEntry(raw)
    return CachedEntry([decode_finding(item) for item in findings], errors, list(read), cells)


def result_parts(raw: object) -> tuple[str, list[object]] | None:
    """A value of ``results`` as written: the entry's text and the numbers of its rows of reads
    (each validated by ``read_row``)."""
    if type(raw) is list and len(raw) == 2:
        text, reads = raw
        if type(text) is str and type(reads) is list:
            return text, reads
    return None


def read_row(rows: Sequence[object], number: object) -> tuple[str, str, FileStat] | None:
    """Row ``number`` of the table of reads as written: the key, what it said, its stat then."""
    if type(number) is not int or not 0 <= number < len(rows):
        return None
    row = rows[number]
    if type(row) is not list or len(row) != 2 + len(UNTRUSTED_STAT):
        return None
    key, said, size, mtime, inode, ctime = row
    if (
        type(key) is str
        and type(said) is str
        and type(size) is type(mtime) is type(inode) is type(ctime) is int
    ):
        return key, said, (size, mtime, inode, ctime)
    return None


DIGEST_PIECE_CHARS = 1 << 20
"""``text_digest`` encodes this much at a time: encoding 31 MB at once held the interpreter's lock
50 to 85 ms (on a loaded machine) in one call, in a worker thread, while the server's event loop
waited; the hash itself lets the lock go."""


def content_digest(data: bytes) -> str:
    """What a file's cache entry is keyed by: a hash of its bytes (its name, time and size play no part)."""
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def text_digest(text: str) -> str:
    """``content_digest`` of ``text`` in UTF-8, encoded a piece at a time (UnicodeEncodeError for a
    lone surrogate, as ``str.encode``)."""
    digest = hashlib.blake2b(digest_size=20)
    for start in range(0, len(text), DIGEST_PIECE_CHARS):
        digest.update(text[start : start + DIGEST_PIECE_CHARS].encode("utf-8"))
    return digest.hexdigest()


def checker_fingerprint(package: Path = PACKAGE, parts: Sequence[str] = CHECKER_PACKAGES) -> str:
    """A hash of every source file of the checker and what runs it."""
    digest = hashlib.blake2b(digest_size=20)
    for part in parts:
        for path in sorted((package / part).rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_key(rules: RuleSelection, fingerprint: str | None = None) -> str:
    select = "*" if rules.select is None else ",".join(sorted(rules.select))
    parts = [
        f"format {FORMAT}",
        __version__,
        fingerprint or checker_fingerprint(),
        sys.implementation.name,
        sys.version,
        f"select {select}",
        f"ignore {','.join(sorted(rules.ignore))}",
    ]
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=20).hexdigest()


def cache_directory(settings: ProjectSettings, given: Path | None = None, folder: Path | None = None) -> Path:
    """``given`` (``--cache-dir``), else ``cache-dir`` in ``[tool.errknow]``, else ``.errknow_cache``
    at the project root (outside a project: in ``folder``, else the current directory)."""
    if given is not None:
        return given
    if settings.cache_dir is not None:
        return settings.cache_dir
    return (settings.root or folder or Path.cwd()) / CACHE_DIRNAME


def cache_file(directory: Path, key: str) -> Path:
    return directory / __version__ / f"{key}.json"


@dataclass(frozen=True, slots=True)
class CacheContents:
    """A cache file as read: ``files`` (path -> its stat, digest), ``results`` (digest -> an
    encoded entry and its rows of reads) and ``read`` (the table of reads), each still to be
    validated where it is used."""

    files: dict[str, object] = field(default_factory=dict)
    results: dict[str, object] = field(default_factory=dict)
    read: list[object] = field(default_factory=list)
    problem: str | None = None
    """Why the file could not be used, if it exists and is not a file this run can read."""

    def entry(self, digest: str) -> CachedEntry | None:
        """The entry kept for the text that hashes to ``digest``, with what it read; ``None`` when
        there is none or it does not validate."""
        parts = result_parts(self.results.get(digest))
        if parts is None:
            return None
        text, numbers = parts
        read = []
        for number in numbers:
            row = read_row(self.read, number)
            if row is None:
                return None  # a damaged row: the entry does not stand
            read.append((row[0], row[1]))
        try:
            return decode_entry(text, read)
        except (ValueError, RecursionError):
            return None


def read_cache_file(path: Path, key: str) -> CacheContents:
    """The contents of the cache file of ``key``; empty if it is missing, damaged or another key's."""
    try:
        data = json.loads(read_regular(path, MAX_CACHE_BYTES).data)
    except UnreadableFile as exc:
        return CacheContents(problem=f"warning: the cache {path} is ignored: {exc}")
    except (OSError, ValueError, RecursionError):
        return CacheContents()
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != key:
        return CacheContents()
    files, results, read = data.get("files"), data.get("results"), data.get("read")
    if isinstance(files, dict) and isinstance(results, dict) and isinstance(read, list):
        return CacheContents(files, results, read)
    return CacheContents()


def encode_cache_file(
    key: str,
    files: dict[str, list[int | str]],
    results: dict[str, tuple[str, list[int]]],
    read: list[ReadRow],
) -> bytes:
    """The cache file ``read_cache_file`` reads back."""
    payload = {"format": FORMAT, "key": key, "files": files, "results": results, "read": read}
    return json.dumps(payload, separators=(",", ":")).encode()


def make_cache_directory(directory: Path) -> None:
    """The directory with its ``.gitignore`` and ``CACHEDIR.TAG`` (tar, backup tools skip it)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", "# Created by errknow-ls.\n*\n"), ("CACHEDIR.TAG", CACHEDIR_TAG)):
        marker = directory / name
        if not marker.exists():
            marker.write_text(text, encoding="utf-8")


def write_atomically(target: Path, data: bytes) -> None:
    import tempfile  # noqa: PLC0415 (on use: a warm run that changes nothing writes nothing)

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp_name, target)  # noqa: PTH105
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
