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

import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from stat import S_ISREG

from errknow_ls.core import Finding, Span
from errknow_ls.core.edits import Offsets
from errknow_ls.project.results_cache import (
    UNTRUSTED_STAT,
    CachedEntry,
    FileStat,
    ReadRow,
    cache_file,
    content_digest,
    decode_entry,
    encode_cache_file,
    encode_entry,
    file_stat,
    make_cache_directory,
    read_cache_file,
    read_row,
    result_parts,
    write_atomically,
)
from errknow_ls.runner.engine import FileJob, FileResult, check_files
from errknow_ls.runner.fixing import applicable
from errknow_ls.runner.notebooks import is_notebook
from errknow_ls.runner.sourcefile import SourceFileError, decode_source, read_bytes

RACY_NS = 2_000_000_000
INTERNAL_ERROR = "internal error"
_ROW_NUMBER = {int}
"""The type of every number in an entry's reads (see ``_still_read_the_same``)."""


class CheckCache:
    """The cache of one key; ``lookup`` before checking, ``record`` after, ``save`` at the end."""

    def __init__(self, directory: Path, key: str) -> None:
        self.directory = directory
        self.key = key
        self.path = cache_file(directory, key)
        self._files: dict[str, object] = {}
        self._results: dict[str, object] = {}
        """A digest -> ``[entry, reads]`` (``result_parts``), as read or recorded."""
        self._read: list[object] = []
        """The table of reads (``read_row``): rows recorded this run are appended, and a row whose
        module or folder was read again and still said the same takes its new stat."""
        self._rows: dict[tuple[str, str], int] | None = None
        """The number of each row by its key and what it said: made when a result is recorded."""
        self._folders: dict[str, int] = {}
        """The number of the row of each folder (see ``_row``), with ``_rows``."""
        self._holding: set[int] = set()
        """The numbers of the rows whose module (or folder) was looked at this run and still says
        what it said (each row is looked at once a run)."""
        self._changed_rows: set[int] = set()
        """The numbers of the rows looked at this run whose module or folder says something else
        now, or that are damaged."""
        self._stats: dict[str, FileStat] = {}
        """The stat (see ``FileStat``) of each file looked up, taken before it was read."""
        self._seen: dict[str, os.stat_result | None] = {}
        """Every file and folder stat-ed this run, by its absolute name: a module that files import
        and that is checked itself is stat-ed once."""
        self._parsed: dict[str, CachedEntry] = {}
        """Entries validated so far, by their text (most files find nothing: one text, one entry)."""
        self._cwd = os.getcwd()  # noqa: PTH109
        self._changed = False
        self.problem: str | None = None
        """Why the cache file could not be used, if it exists and is not a file this run can read."""
        self._load()

    def _load(self) -> None:
        contents = read_cache_file(self.path, self.key)
        self._files, self._results, self._read = contents.files, contents.results, contents.read
        self.problem = contents.problem

    def lookup(self, spelled: str) -> CachedEntry | None:
        """What checking the file named ``spelled`` (as ``str`` of its ``Path`` spells it) found
        before, if its bytes are the same as then."""
        name = _absolute(spelled, self._cwd)
        info = self._stat_result(name)
        if info is None or not S_ISREG(info.st_mode):
            return None  # checking it says why it is not read
        stat = self._stats[name] = file_stat(info)
        digest = unread = _digest_if_unchanged(self._files.get(name), stat)
        data = None
        if digest is None:
            if not self._results:
                return None
            try:
                data = read_bytes(Path(spelled))
            except SourceFileError:
                return None
            digest = content_digest(data)
        kept = self._entry(digest)
        if kept is None:
            return None
        entry, reads = kept
        if reads and not self._still_read_the_same(reads):
            return None  # a module it read changed: check again
        if entry.findings and not _fits(entry, Path(spelled), data, info.st_size):
            self._results.pop(digest, None)
            self._changed = True
            return None
        if unread is None and self._files.get(name) != [*stat, digest]:
            self._files[name] = [*stat, digest]
            self._changed = True
        return entry

    def _stat_result(self, name: str) -> os.stat_result | None:
        info = self._seen.get(name)
        if info is None and name not in self._seen:
            try:
                info = os.stat(name)  # noqa: PTH116 (a str: this runs for every file)
            except OSError:
                info = None
            self._seen[name] = info
        return info

    def _still_read_the_same(self, reads: list[object]) -> bool:
        """Every module a cached check read still hashes as it did, and every folder where its
        imports found nothing holds the same entries (each row looked at once a run)."""
        if not reads:
            return True
        if set(map(type, reads)) != _ROW_NUMBER:
            return False  # ``False`` and ``0.0`` are no row numbers, though each equals 0
        holding = self._holding
        if holding.issuperset(reads):
            return True  # the common case: every row already looked at
        changed = self._changed_rows
        rows = len(self._read)
        for number in reads:
            if number in holding:
                continue
            if number in changed or type(number) is not int or not 0 <= number < rows:
                return False
            if not self._says_the_same(number):
                changed.add(number)
                return False
            holding.add(number)
        return True

    def _says_the_same(self, number: int) -> bool:
        """Whether the module or folder of row ``number`` (a row of the table) still says what it
        said: unread when its stat is the one it had when it last said so (a folder's moves when an
        entry is made, removed or renamed in it), else read as this run's checks read it."""
        rows = self._read
        row = rows[number]
        if type(row) is list and len(row) == 2 + len(UNTRUSTED_STAT) and type(row[0]) is type(row[1]) is str:
            # The common case first, as cheaply as it can be asked: the stat it had (what equals
            # a stat's numbers is them; ``UNTRUSTED_STAT`` equals none).
            now = self._stat_result(row[0])
            if now is not None and tuple(row[2:]) == file_stat(now):
                return True  # unread: the stat it had when it last said so
        valid = read_row(rows, number)
        if valid is None:
            return False
        key, said, _ = valid
        info = self._stat_result(key)
        stat = None if info is None else file_stat(info)
        # Only entries whose modules changed, or were not looked at yet, load these (they load part
        # of the checker).
        from errknow_ls.analysis.modules import says_the_same  # noqa: PLC0415
        from errknow_ls.project.modules import DISK  # noqa: PLC0415

        if not says_the_same(DISK, key, said):
            return False
        if stat is not None:  # taken before the read: a change meanwhile shows next time
            self._read[number] = [key, said, *stat]
            self._changed = True
        return True

    def _entry(self, digest: str) -> tuple[CachedEntry, list[object]] | None:
        parts = result_parts(self._results.get(digest))
        if parts is None:
            self._results.pop(digest, None)
            return None
        text, reads = parts
        entry = self._parsed.get(text)
        if entry is None:
            try:
                entry = self._parsed[text] = decode_entry(text)
            except (ValueError, RecursionError):  # DamagedEntry, bad JSON, an unknown severity
                del self._results[digest]
                return None
        return entry, reads

    def record(self, result: FileResult) -> None:
        """Keep what a plain check (no ``--fix``) of a file found; failures are not kept."""
        name = _absolute(str(result.path), self._cwd)
        stat = self._stats.get(name)
        if stat is None or result.digest is None or result.error is not None:
            return
        if any(error.startswith(INTERNAL_ERROR) for error in result.check_errors):
            return
        entry = CachedEntry(list(result.findings), list(result.check_errors), cells=list(result.cells))
        reads = [self._row(key, said) for key, said in result.read]
        self._results[result.digest] = [encode_entry(entry), reads]
        self._files[name] = [*stat, result.digest]
        self._changed = True

    def _row(self, key: str, said: str) -> int:
        """The number of the row of ``key`` saying ``said``, a new one (its stat not yet known) if
        there is none. A folder has one row, whatever each import looked for there: what a new look
        asked is joined into it (an entry then holds while the folder holds every entry any import
        looked for, a little more than it needs, and the table keeps a row per folder, not one per
        set of names: most of the table, and of a warm run's reading of it, where many scripts
        import from one folder)."""
        from errknow_ls.analysis.modules import FOLDER, DamagedState, FolderState  # noqa: PLC0415 (loaded: it checked)

        if self._rows is None:
            self._rows, self._folders = {}, {}
            for number in range(len(self._read)):
                row = read_row(self._read, number)
                if row is not None:
                    self._rows.setdefault(row[:2], number)
                    if row[1].startswith(FOLDER):
                        self._folders.setdefault(row[0], number)
        known = self._rows.get((key, said))
        if known is not None:
            return known
        folder = said.startswith(FOLDER)
        kept = self._folders.get(key) if folder else None
        row = None if kept is None else read_row(self._read, kept)
        try:
            joined = None if row is None else FolderState.of(row[1]).joined(FolderState.of(said)).said()
        except DamagedState:  # a damaged row: the folder gets a new one
            joined = None
        if kept is not None and row is not None and joined is not None:
            if joined != row[1]:  # it says more now: looked at again before the cache is written
                self._read[kept] = [key, joined, *UNTRUSTED_STAT]
                self._rows[key, joined] = kept
                self._holding.discard(kept)
            self._rows[key, said] = kept
            return kept
        number = self._rows[key, said] = len(self._read)
        if folder:
            self._folders[key] = number
        self._read.append([key, said, *UNTRUSTED_STAT])
        return number

    def _look_again(self, reads: list[object]) -> None:
        """Each row of ``reads`` whose stat is not known yet (the module or folder was read by this
        run's checks, or changed just before the last write) is looked at once more before the
        cache is written, as the next run would: one that still says what it said takes the stat it
        has now (taken before it is read again), so that the next run need not read it. A cold
        check of 19 packages left 5,002 imported modules for the first warm run to read and hash
        again: 1.05 s against the 0.28 s of the runs after it; now the cold run reads them at its
        end."""
        for number in reads:
            row = read_row(self._read, number)
            if type(number) is not int or row is None or row[2] != UNTRUSTED_STAT:
                continue  # no row (``_renumbered`` drops the entry), or its stat is known
            if number not in self._holding and number not in self._changed_rows:
                (self._holding if self._says_the_same(number) else self._changed_rows).add(number)

    def save(self) -> str | None:
        """Write the cache if anything changed; a problem is returned as a warning, never raised."""
        if not self._changed:
            return None
        try:  # first: made in the project's root, it moves the root folder's stat
            make_cache_directory(self.directory)
        except OSError as exc:
            return _cannot_write(self.directory, exc)
        recent = time.time_ns() - RACY_NS
        files = _trusted_stats(self._files, recent)
        results: dict[str, tuple[str, list[int]]] = {}
        read: list[ReadRow] = []
        renumbered: dict[int, int] = {}
        for digest in dict.fromkeys(str(entry[-1]) for entry in files.values()):
            parts = result_parts(self._results.get(digest))
            if parts is not None:
                self._look_again(parts[1])  # (a change after ``recent`` shows as racy)
                reads = _renumbered(parts[1], self._read, renumbered, read, recent)
                if reads is not None:
                    results[digest] = (parts[0], reads)
        try:
            write_atomically(self.path, encode_cache_file(self.key, files, results, read))
        except OSError as exc:
            return _cannot_write(self.directory, exc)
        return None


def _cannot_write(directory: Path, exc: OSError) -> str:
    return f"warning: cannot write the cache in {directory}: {exc.strerror or exc}"


def _renumbered(
    reads: list[object], rows: list[object], renumbered: dict[int, int], kept: list[ReadRow], recent: int
) -> list[int] | None:
    """The numbers of ``reads`` in the table being written (``kept``), each row copied there when
    first met, untrusted if its module or folder changed since ``recent``; ``None`` if one is damaged
    (the entry goes)."""
    numbers = []
    for number in reads:
        if type(number) is not int:
            return None
        new = renumbered.get(number)
        if new is None:
            row = read_row(rows, number)
            if row is None:
                return None
            key, said, stat = row
            racy = max(stat[1], stat[3]) >= recent
            new = renumbered[number] = len(kept)
            kept.append([key, said, *(UNTRUSTED_STAT if racy else stat)])
        numbers.append(new)
    return numbers


def _absolute(spelled: str, cwd: str) -> str:
    """The name a file is kept under: absolute, no symlink resolved (that would cost a stat a part).
    A relative name with no ``.`` or ``..`` part needs only the working directory in front: what
    ``abspath`` would give, without its normalisation (a third of a warm run's lookups)."""
    if os.path.isabs(spelled):  # noqa: PTH117
        return spelled
    if "/." in "/" + spelled or os.sep != "/" or "//" in spelled:
        return os.path.abspath(spelled)  # noqa: PTH100
    return cwd + "/" + spelled


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
    (``data``; not a notebook's, whose spans count its cells' lines), else within its size (a line
    or column past the file's byte count cannot be in it)."""
    spans = [span for finding in entry.findings for span in _spans(finding)]
    if not spans:
        return True
    if data is None or is_notebook(path):
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


def check_files_cached(
    names: Sequence[str],
    job: Callable[[Path], FileJob],
    cache: CheckCache | None,
    *,
    fixing: bool = False,
    unsafe_fixes: bool = False,
) -> list[FileResult]:
    """``check_files`` on the ``job`` of each file named (``Discovered.names``), taking what the
    cache knows and keeping what it learns; sorted by path. A file the cache answers needs no job
    (with ``fixing``, one whose result has no fix to apply, ``unsafe_fixes`` or not), and one it
    knows to hold neither finding nor error has no result: there is nothing to say of it (most
    files of a warm run: no ``Path`` and no result each)."""
    if cache is None:
        return check_files([job(Path(name)) for name in names])
    known: list[tuple[str, FileResult]] = []
    unknown: list[FileJob] = []
    for name in names:
        entry = cache.lookup(name)
        if entry is None or (fixing and _fixable(entry.findings, unsafe_fixes)):
            unknown.append(job(Path(name)))
        elif entry.findings or entry.errors:
            cells = tuple(entry.cells)
            known.append(
                (name, FileResult(Path(name), entry.findings, check_errors=entry.errors, cells=cells))
            )
    checked = check_files(unknown)
    if not fixing:
        for result in checked:
            cache.record(result)
    known += ((str(result.path), result) for result in checked)
    known.sort(key=lambda pair: pair[0])  # the names are the paths' own spellings (``str``)
    return [result for _, result in known]


def _fixable(findings: Sequence[Finding], unsafe: bool) -> bool:
    """Whether ``--fix`` might rewrite a file that holds ``findings``: then it is read and checked
    afresh."""
    return any(applicable(finding.preferred_fix, unsafe) for finding in findings)
