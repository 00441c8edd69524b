"""What ``check`` found in each file, kept across runs: an unchanged file is not checked again and,
when its size and modification time are unchanged too, not even read.

One JSON file per *key*: the format, the errknow-ls version, a hash of the checker's own sources
(``core``, ``analysis``, ``runner``: editing the checker starts a new cache), the Python whose ``ast``
parses, and the rules selected. Inside, ``results`` maps the hash of a file's bytes to what checking
those bytes found, so an entry cannot go stale; ``files`` maps a path to its size, modification time
and that hash, only to spare reading a file whose bytes were hashed before. A file modified less than
``RACY_NS`` before the cache was written keeps no size and time: a change within the file system's
time granularity would not show in them, so it is read and hashed again next time.

The directory (default ``.errknow_cache`` at the project root) holds a ``.gitignore`` of ``*`` and a
``CACHEDIR.TAG``, as ruff's does. The file is replaced atomically; a file that does not parse, or an
entry that does not validate, is ignored and the file it was for is checked again. ``--fix`` never
takes a cached result for a file it could rewrite, and results of a ``--fix`` run are not kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG

from errknow_ls import __version__
from errknow_ls.core import Finding, Span
from errknow_ls.core.codec import decode_finding, encode_finding
from errknow_ls.core.files import MIB, UnreadableFile, read_regular
from errknow_ls.project import RuleSelection
from errknow_ls.runner.engine import FileJob, FileResult, check_files
from errknow_ls.runner.fixing import Offsets, applicable
from errknow_ls.runner.notebooks import is_notebook
from errknow_ls.runner.sourcefile import SourceFileError, content_digest, decode_source, read_bytes

CACHE_DIRNAME = ".errknow_cache"
FORMAT = 3
RACY_NS = 2_000_000_000
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by errknow-ls.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
PACKAGE = Path(__file__).resolve().parent.parent
CHECKER_PACKAGES = ("core", "analysis", "runner")
INTERNAL_ERROR = "internal error"
MAX_CACHE_BYTES = 512 * MIB
"""A cache file larger than this is ignored (with a warning) and rewritten."""


@dataclass(frozen=True, slots=True)
class _Entry:
    findings: list[Finding]
    errors: list[str]
    read: list[tuple[str, str]] = field(default_factory=list)
    """The project's modules the check read, with the hash of each text then."""
    cells: list[int] = field(default_factory=list)
    """A notebook's: the code cell each finding is in (see ``FileResult.cells``)."""


ENTRY_KEYS = frozenset({"findings", "errors", "read", "cells"})


class _Damaged(ValueError):
    """An entry that is not what ``_encode`` writes."""


def _encode(entry: _Entry) -> str:
    data: dict[str, object] = {
        "findings": [encode_finding(f) for f in entry.findings],
        "errors": entry.errors,
    }
    if entry.read:
        data["read"] = [list(pair) for pair in entry.read]
    if entry.cells:
        data["cells"] = entry.cells
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _is_read_pair(pair: object) -> bool:
    return type(pair) is list and len(pair) == 2 and all(type(part) is str for part in pair)


def _decode(raw: str) -> _Entry:
    """What ``_encode`` wrote, every type checked; raises ``ValueError`` otherwise."""
    data = json.loads(raw)
    if type(data) is not dict or not {"findings", "errors"} <= set(data) <= ENTRY_KEYS:
        raise _Damaged(raw)
    findings, errors, read = data["findings"], data["errors"], data.get("read", [])
    cells = data.get("cells", [])
    if type(cells) is not list or any(type(c) is not int for c in cells):
        raise _Damaged(raw)
    if type(findings) is list and len(cells) not in (0, len(findings)):
        raise _Damaged(raw)
    if type(findings) is not list or type(errors) is not list or any(type(e) is not str for e in errors):
        raise _Damaged(raw)
    if type(read) is not list or any(
        type(pair) is not list or len(pair) != 2 or any(type(part) is not str for part in pair)
        for pair in read
    ):
        raise _Damaged(raw)
    return _Entry([decode_finding(item) for item in findings], errors, [(k, d) for k, d in read], cells)


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


class CheckCache:
    """The cache of one key; ``lookup`` before checking, ``record`` after, ``save`` at the end."""

    def __init__(self, directory: Path, key: str) -> None:
        self.directory = directory
        self.key = key
        self.path = directory / __version__ / f"{key}.json"
        self._files: dict[str, object] = {}
        self._results: dict[str, object] = {}
        self._stats: dict[str, tuple[int, int]] = {}
        """Size and modification time of each file looked up, taken before it was read."""
        self._parsed: dict[str, _Entry] = {}
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
        try:
            data = json.loads(read_regular(self.path, MAX_CACHE_BYTES).data)
        except UnreadableFile as exc:
            self.problem = f"warning: the cache {self.path} is ignored: {exc}"
            return
        except (OSError, ValueError, RecursionError):
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != self.key:
            return
        files, results = data.get("files"), data.get("results")
        if isinstance(files, dict) and isinstance(results, dict):
            self._files, self._results = files, results

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
        stat = self._stats[name] = (info.st_size, info.st_mtime_ns)
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
        # Only entries that read modules load these (they load part of the checker).
        from errknow_ls.analysis.modules import says_the_same  # noqa: PLC0415
        from errknow_ls.project.modules import DISK  # noqa: PLC0415

        for key, then in read:
            if (key, then) not in self._still_said:
                self._still_said[key, then] = says_the_same(DISK, key, then)  # as this run's checks read it
            if not self._still_said[key, then]:
                return False
        return True

    def _entry(self, digest: str) -> _Entry | None:
        raw = self._results.get(digest)
        if not isinstance(raw, str):
            return None
        entry = self._parsed.get(raw)
        if entry is not None:
            return entry
        try:
            entry = self._parsed[raw] = _decode(raw)
        except (ValueError, RecursionError):  # _Damaged, bad JSON, an unknown severity
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
        entry = _Entry(findings, errors, list(result.read), list(result.cells))
        self._results[result.digest] = _encode(entry)
        self._files[name] = [*stat, result.digest]
        self._changed = True

    def save(self) -> str | None:
        """Write the cache if anything changed; a problem is returned as a warning, never raised."""
        if not self._changed:
            return None
        recent = time.time_ns() - RACY_NS
        files: dict[str, list[int | str]] = {}
        for name, entry in self._files.items():
            valid = _file_entry(entry)
            if valid is not None:
                size, mtime, digest = valid
                files[name] = [size, mtime, digest] if mtime < recent else [-1, -1, digest]
        kept = {entry[2] for entry in files.values()}
        results = {digest: raw for digest, raw in self._results.items() if digest in kept}
        payload = {"format": FORMAT, "key": self.key, "files": files, "results": results}
        try:
            make_cache_directory(self.directory)
            _write_atomically(self.path, json.dumps(payload, separators=(",", ":")).encode())
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


def _file_entry(entry: object) -> tuple[int, int, str] | None:
    """``[size, mtime_ns, digest]`` as written; anything else is a damaged entry."""
    if isinstance(entry, list) and len(entry) == 3:
        size, mtime, digest = entry
        if type(size) is int and type(mtime) is int and isinstance(digest, str):
            return size, mtime, digest
    return None


def _digest_if_unchanged(entry: object, stat: tuple[int, int]) -> str | None:
    valid = _file_entry(entry)
    if valid is None or valid[0] < 0 or valid[:2] != stat:
        return None
    return valid[2]


def make_cache_directory(directory: Path) -> None:
    """The directory with its ``.gitignore`` and ``CACHEDIR.TAG`` (tar, backup tools skip it)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", "# Created by errknow-ls.\n*\n"), ("CACHEDIR.TAG", CACHEDIR_TAG)):
        marker = directory / name
        if not marker.exists():
            marker.write_text(text, encoding="utf-8")


def _write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp_name, target)  # noqa: PTH105
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _spans(finding: Finding) -> Iterator[Span]:
    yield finding.span
    yield from (edit.span for fix in finding.fixes for edit in fix.edits)
    yield from (related.span for related in finding.related)


def _fits(entry: _Entry, path: Path, data: bytes | None, size: int) -> bool:
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
