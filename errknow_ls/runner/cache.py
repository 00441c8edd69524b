"""What ``check`` found in each file, kept across runs: an unchanged file is not checked again and,
when its size and modification time are unchanged too, not even read.

One JSON file per *key* (``errknow_ls.project.results_cache``, which the server reads too). Inside,
``results`` maps the hash of a file's bytes to what checking those bytes found, so an entry cannot
go stale; ``files`` maps a path to its size, modification time, inode number, status change time
and that hash, only to spare reading a file whose bytes were hashed before (as git's index does).
The status change time is what makes that safe: writing a file sets it to the current time, and
unlike the modification time no program can set it back, so bytes swapped for others of the same
size under the old modification time are read again; a file replaced by another (an editor's
atomic save, ``cp -p``) has another inode. A file modified or changed less than ``RACY_NS`` before
the cache was written keeps no stat: a change within the file system's time granularity would not
show in it, so it is read and hashed again next time.

The directory (default ``.errknow_cache`` at the project root) holds a ``.gitignore`` of ``*`` and a
``CACHEDIR.TAG``, as ruff's does. The file is replaced atomically; a file that does not parse, or an
entry that does not validate, is ignored and the file it was for is checked again. ``--fix`` never
takes a cached result for a file it could rewrite, and results of a ``--fix`` run are not kept.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from stat import S_ISREG

from errknow_ls.core import Finding, Span
from errknow_ls.core.edits import Offsets
from errknow_ls.project.results_cache import (
    FORMAT,
    CachedEntry,
    cache_file,
    content_digest,
    decode_entry,
    encode_entry,
    make_cache_directory,
    read_cache_file,
    write_atomically,
)
from errknow_ls.runner.engine import FileJob, FileResult, check_files
from errknow_ls.runner.fixing import applicable
from errknow_ls.runner.notebooks import is_notebook
from errknow_ls.runner.sourcefile import SourceFileError, decode_source, read_bytes

RACY_NS = 2_000_000_000
FileStat = tuple[int, int, int, int]
"""What spares reading a file: its size, ``st_mtime_ns``, ``st_ino`` and ``st_ctime_ns``."""
UNTRUSTED_STAT: FileStat = (-1, -1, -1, -1)
"""Kept for a file modified just before the cache was written: its bytes are hashed again."""
INTERNAL_ERROR = "internal error"


class CheckCache:
    """The cache of one key; ``lookup`` before checking, ``record`` after, ``save`` at the end."""

    def __init__(self, directory: Path, key: str) -> None:
        self.directory = directory
        self.key = key
        self.path = cache_file(directory, key)
        self._files: dict[str, object] = {}
        self._results: dict[str, object] = {}
        self._stats: dict[str, FileStat] = {}
        """The stat (see ``FileStat``) of each file looked up, taken before it was read."""
        self._parsed: dict[str, CachedEntry] = {}
        self._read: dict[str, object] = {}
        """A module or folder an entry read and a hash of what it said, ``key\0hash`` -> its stat
        when it said so, and that hash (see ``_says_the_same``)."""
        self._read_used: set[str] = set()
        """The entries of ``_read`` that held this run: only they are kept (what an edited module
        said before, and what results no longer looked up read, go)."""
        self._still_said: dict[tuple[str, str], bool] = {}
        """Whether each project module (or folder) an entry read still says what it said then, by
        its path and what it said (looked at once a run)."""
        self._cwd = os.getcwd()  # noqa: PTH109
        """Entries validated so far, by their text (most files find nothing: one text, one entry)."""
        self._changed = False
        self.problem: str | None = None
        """Why the cache file could not be used, if it exists and is not a file this run can read."""
        self._load()

    def _load(self) -> None:
        contents = read_cache_file(self.path, self.key)
        self._files, self._results, self._read = contents.files, contents.results, contents.read
        self.problem = contents.problem

    def lookup(self, path: Path) -> FileResult | None:
        """What checking ``path`` found before, if its bytes are the same as then."""
        spelled = str(path)
        name = _absolute(spelled, self._cwd)
        try:
            info = os.stat(spelled)  # noqa: PTH116 (a str: this runs for every file)
        except OSError:
            return None
        if not S_ISREG(info.st_mode):
            return None  # checking it says why it is not read
        stat = self._stats[name] = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
        digest = _digest_if_unchanged(self._files.get(name), stat)
        data = None
        if digest is None:
            if not self._results:
                return None
            try:
                data = read_bytes(path)
            except SourceFileError:
                return None
            digest = content_digest(data)
        entry = self._entry(digest)
        if entry is None:
            return None
        if entry.read and not self._still_read_the_same(entry.read):
            return None  # a module it read changed: check again
        if not _fits(entry, path, None if is_notebook(path) else data, info.st_size):
            self._results.pop(digest, None)
            self._changed = True
            return None
        if self._files.get(name) != [*stat, digest]:
            self._files[name] = [*stat, digest]
            self._changed = True
        cells = tuple(entry.cells)
        return FileResult(path, entry.findings, check_errors=entry.errors, digest=digest, cells=cells)

    def _still_read_the_same(self, read: list[tuple[str, str]]) -> bool:
        """Every module a cached check read still hashes as it did, and every folder where its
        imports found nothing holds the same entries (each looked at once a run)."""
        for key, then in read:
            if (key, then) not in self._still_said:
                self._still_said[key, then] = self._says_the_same(key, then)
            if not self._still_said[key, then]:
                return False
        return True

    def _says_the_same(self, key: str, then: str) -> bool:
        """Whether the module or folder at ``key`` still says ``then``: unread when its stat is the
        one it had when it last said so (a folder's moves when an entry is made, removed or renamed
        in it), else read as this run's checks read it."""
        stat = _stat(key)
        said = content_digest(then.encode())  # short: a folder's state names every entry looked for
        memo = f"{key}\0{said}"
        if stat is not None and _digest_if_unchanged(self._read.get(memo), stat) == said:
            self._read_used.add(memo)
            return True
        # Only entries that read modules load these (they load part of the checker).
        from errknow_ls.analysis.modules import says_the_same  # noqa: PLC0415
        from errknow_ls.project.modules import DISK  # noqa: PLC0415

        if not says_the_same(DISK, key, then):
            return False
        if stat is not None:  # taken before the read: a change meanwhile shows next time
            self._read[memo] = [*stat, said]
            self._read_used.add(memo)
            self._changed = True
        return True

    def _entry(self, digest: str) -> CachedEntry | None:
        raw = self._results.get(digest)
        if not isinstance(raw, str):
            return None
        entry = self._parsed.get(raw)
        if entry is not None:
            return entry
        try:
            entry = self._parsed[raw] = decode_entry(raw)
        except (ValueError, RecursionError):  # DamagedEntry, bad JSON, an unknown severity
            del self._results[digest]
            return None
        return entry

    def record(self, result: FileResult) -> None:
        """Keep what a plain check (no ``--fix``) of a file found; failures are not kept."""
        name = _absolute(str(result.path), self._cwd)
        stat = self._stats.get(name)
        if stat is None or result.digest is None or result.error is not None:
            return
        if any(error.startswith(INTERNAL_ERROR) for error in result.check_errors):
            return
        findings, errors = list(result.findings), list(result.check_errors)
        entry = CachedEntry(findings, errors, list(result.read), list(result.cells))
        self._results[result.digest] = encode_entry(entry)
        self._files[name] = [*stat, result.digest]
        self._changed = True

    def save(self) -> str | None:
        """Write the cache if anything changed; a problem is returned as a warning, never raised."""
        if not self._changed:
            return None
        recent = time.time_ns() - RACY_NS
        files = _trusted_stats(self._files, recent)
        kept = {entry[-1] for entry in files.values()}
        results = {digest: raw for digest, raw in self._results.items() if digest in kept}
        read = _trusted_stats(
            {memo: self._read[memo] for memo in self._read_used if memo in self._read}, recent
        )
        payload = {"format": FORMAT, "key": self.key, "files": files, "results": results, "read": read}
        try:
            make_cache_directory(self.directory)
            write_atomically(self.path, json.dumps(payload, separators=(",", ":")).encode())
        except OSError as exc:
            return f"warning: cannot write the cache in {self.directory}: {exc.strerror or exc}"
        return None


def _absolute(spelled: str, cwd: str) -> str:
    """The name a file is kept under: absolute, no symlink resolved (that would cost a stat a part).
    A relative name with no ``.`` or ``..`` part needs only the working directory in front: what
    ``abspath`` would give, without its normalisation (a third of a warm run's lookups)."""
    if os.path.isabs(spelled):  # noqa: PTH117
        return spelled
    if "/." in "/" + spelled or os.sep != "/" or "//" in spelled:
        return os.path.abspath(spelled)  # noqa: PTH100
    return cwd + "/" + spelled


def _stat(spelled: str) -> FileStat | None:
    try:
        info = os.stat(spelled)  # noqa: PTH116 (a str: this runs for every module read)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns


def _trusted_stats(entries: dict[str, object], recent: int) -> dict[str, list[int | str]]:
    """The valid entries, each with its stat, or ``UNTRUSTED_STAT`` where the file was modified or
    changed since ``recent``, too close to now for a later change to show in its stat."""
    kept: dict[str, list[int | str]] = {}
    for name, entry in entries.items():
        valid = _file_entry(entry)
        if valid is not None:
            *stat, digest = valid
            racy = max(stat[1], stat[3]) >= recent
            kept[name] = [*UNTRUSTED_STAT, digest] if racy else [*stat, digest]
    return kept


def _file_entry(entry: object) -> tuple[int, int, int, int, str] | None:
    """``[size, mtime_ns, inode, ctime_ns, digest]`` as written; anything else is a damaged entry."""
    if isinstance(entry, list) and len(entry) == len(UNTRUSTED_STAT) + 1:
        size, mtime, inode, ctime, digest = entry
        if all(type(part) is int for part in (size, mtime, inode, ctime)) and isinstance(digest, str):
            return size, mtime, inode, ctime, digest
    return None


def _digest_if_unchanged(entry: object, stat: FileStat) -> str | None:
    """The digest kept for a file whose every part of the stat is what it was when it was hashed
    (compared as they are: what equals a stat is a stat, and ``UNTRUSTED_STAT`` equals none)."""
    if type(entry) is list and len(entry) == len(stat) + 1 and tuple(entry[:-1]) == stat:
        digest = entry[-1]
        return digest if isinstance(digest, str) else None
    return None


def _spans(finding: Finding) -> Iterator[Span]:
    yield finding.span
    yield from (edit.span for fix in finding.fixes for edit in fix.edits)
    yield from (related.span for related in finding.related if related.path is None)


def _fits(entry: CachedEntry, path: Path, data: bytes | None, size: int) -> bool:
    """Whether every span of ``entry`` lies in the file it is for: in its text when it was read
    (``data``), else within its size (a line or column past the file's byte count cannot be in it)."""
    spans = [span for finding in entry.findings for span in _spans(finding)]
    if not spans:
        return True
    if data is None:
        return all(
            span.start <= span.end and span.end.line <= size and span.end.character <= size for span in spans
        )
    try:
        offsets = Offsets(decode_source(path, data).text)
    except SourceFileError:
        return False
    return all(
        span.start <= span.end and offsets.holds(span.start) and offsets.holds(span.end) for span in spans
    )


def check_files_cached(jobs: Sequence[FileJob], cache: CheckCache | None) -> list[FileResult]:
    """``check_files``, taking what the cache knows and keeping what it learns; sorted by path."""
    if cache is None:
        return check_files(jobs)
    known: list[FileResult] = []
    unknown: list[FileJob] = []
    for job in jobs:
        hit = cache.lookup(job.path)
        if hit is None or (job.fix and _fixable(hit, job.unsafe_fixes)):
            unknown.append(job)
        else:
            known.append(hit)
    checked = check_files(unknown)
    if not any(job.fix for job in jobs):
        for result in checked:
            cache.record(result)
    return sorted(known + checked, key=lambda r: str(r.path))


def _fixable(result: FileResult, unsafe: bool) -> bool:
    """Whether ``--fix`` might rewrite the file: then it is read and checked afresh."""
    return any(applicable(finding.preferred_fix, unsafe) for finding in result.findings)
