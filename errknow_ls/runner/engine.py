"""Check files one by one, or on two processes when there are many; results in a stable order."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from errknow_ls.analysis.prefilter import might_backward
from errknow_ls.core import Edit, Finding
from errknow_ls.runner.fixing import fix_until_stable
from errknow_ls.runner.options import RuleSelection
from errknow_ls.runner.sourcefile import (
    SourceChanged,
    SourceError,
    content_digest,
    decode_source,
    read_bytes,
    read_source,
    with_newline,
    write_source,
)

PARALLEL_THRESHOLD = 16
"""More files than this are checked on a process pool; fewer are not worth its start-up."""
MAX_WORKERS = 2

if TYPE_CHECKING:
    from errknow_ls.analysis import CheckResult


def check_source(
    text: str, *, select: Collection[str] | None = None, ignore: Collection[str] = ()
) -> CheckResult:
    """The checker, imported on first use: a run that the cache answers whole never loads it."""
    from errknow_ls.analysis import checker

    return checker.check_source(text, select=select, ignore=ignore)


@dataclass(frozen=True, slots=True)
class FileJob:
    path: Path
    rules: RuleSelection
    fix: bool = False
    unsafe_fixes: bool = False
    write_inside: tuple[str, ...] | None = None
    """Real paths a fixed file's own real path must be (or be below) to be written; ``None``: any."""


@dataclass(frozen=True, slots=True)
class FileResult:
    path: Path
    findings: list[Finding] = field(default_factory=list)
    fixed: int = 0
    check_errors: list[str] = field(default_factory=list)
    """What the checker could not check: syntax errors, its own internal errors."""
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    """Why the file could not be checked or written: the run then exits 2."""
    digest: str | None = None
    """The hash of the bytes that were checked (``content_digest``), for the cache."""


def check_file(job: FileJob) -> FileResult:
    """Check (and fix) one file; a failure of the checker itself fails this file, not the run."""
    try:
        return _check_file(job)
    except Exception as exc:  # any checker bug: report it and go on with the other files
        return FileResult(job.path, error=f"internal error: {type(exc).__name__}: {exc}")


def _check_file(job: FileJob) -> FileResult:
    try:
        source = read_source(job.path)
    except SourceError as exc:
        return FileResult(job.path, error=str(exc))
    data = source.origin.data if source.origin else source.text.encode(source.encoding)

    def check(text: str) -> tuple[list[Finding], list[str]]:
        result = check_source(text, select=job.rules.select, ignore=job.rules.ignore)
        return [_spelled_for(f, source.newline) for f in result.findings], list(result.errors)

    if not job.fix:
        findings, errors = check(source.text)
        return FileResult(job.path, findings, check_errors=errors, digest=content_digest(data))
    outcome = fix_until_stable(source.text, check, job.unsafe_fixes)
    result = FileResult(job.path, outcome.findings, outcome.fixed, outcome.errors, outcome.warnings)
    if outcome.text == source.text:
        return result
    try:
        write_source(source, outcome.text, job.write_inside)
    except SourceChanged as exc:
        # What was found is about text the file no longer holds.
        return FileResult(job.path, error=str(exc))
    except SourceError as exc:
        # Nothing was written, so everything found before fixing still stands.
        findings, errors = check(source.text)
        return FileResult(job.path, findings, 0, errors, outcome.warnings, error=str(exc))
    return result


def _spelled_for(finding: Finding, newline: str) -> Finding:
    """Fix edits that insert lines use the file's own line ending (CRLF files stay CRLF)."""
    if newline == "\n" or not finding.fixes:
        return finding
    fixes = tuple(
        dataclasses.replace(fix, edits=tuple(_respelled(e, newline) for e in fix.edits))
        for fix in finding.fixes
    )
    return dataclasses.replace(finding, fixes=fixes)


def _respelled(edit: Edit, newline: str) -> Edit:
    return Edit(edit.span, with_newline(edit.content, newline))


def check_files(jobs: Sequence[FileJob]) -> list[FileResult]:
    """Every job's result, sorted by path whatever order the workers finish in.

    This process reads every file and settles those without a word a finding needs (nearly all of
    a code base); the rest go to the checker as they are found, on a pool of processes when there
    are enough files to pay for one. The pool starts first, so that its workers load the checker
    while this process reads.
    """
    pool = _Pool() if _worth_a_pool(len(jobs)) else None
    try:
        results: list[FileResult] = []
        here: list[FileJob] = []
        for job in jobs:
            settled = _settled(job)
            if settled is not None:
                results.append(settled)
            elif pool is None or not pool.submit(job):
                here.append(job)
        results += [check_file(job) for job in here]
        if pool is not None:
            results += pool.results()
    finally:
        if pool is not None:
            pool.close()
    return sorted(results, key=lambda r: str(r.path))


def _settled(job: FileJob) -> FileResult | None:
    """The result of a file read here when it cannot hold a finding (it lacks the words every
    finding needs: the checker's own first test, on bytes) or cannot be read; else None."""
    try:
        data = read_bytes(job.path)
        if not data.isascii() or b"coding" in _first_two_lines(data):  # ASCII decodes as anything
            decode_source(job.path, data)
    except SourceError as exc:
        return FileResult(job.path, error=str(exc))
    return None if might_backward(data) else FileResult(job.path, digest=content_digest(data))


def _first_two_lines(data: bytes) -> bytes:
    """Where a coding cookie can be."""
    second = data.find(b"\n", data.find(b"\n") + 1)
    return data if second < 0 else data[:second]


def _worth_a_pool(files: int) -> bool:
    return files > PARALLEL_THRESHOLD and (os.cpu_count() or 1) > 1


def _warm() -> None:
    """Start a worker, with the checker loaded, while the parent still reads files (the pool starts
    its processes on the first jobs; forked from a forkserver that preloaded the checker, a worker
    has it already, and a spawned one loads it here)."""
    from errknow_ls.analysis import checker  # noqa: F401


class _Pool:
    """A pool of MAX_WORKERS processes, started at once, that checks one file at a time (a few
    files cost most). Where no pool can be had (no semaphores) or a worker dies, the files are
    checked in this process instead."""

    def __init__(self) -> None:
        # Imported here: a run that checks few files (or none, all cached) never starts a pool.
        import concurrent.futures
        import multiprocessing

        # forkserver, not fork: forking a process that may have threads (a test runner, an editor
        # host) can deadlock, and Python warns about it.
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if context.get_start_method() == "forkserver":
            # Loaded once, in the server the workers are forked from (if it is not running yet).
            context.set_forkserver_preload(["errknow_ls.analysis.checker"])
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._submitted: list[tuple[FileJob, concurrent.futures.Future[FileResult]]] = []
        try:
            self._executor = concurrent.futures.ProcessPoolExecutor(MAX_WORKERS, mp_context=context)
            self._warming = [self._executor.submit(_warm) for _ in range(MAX_WORKERS)]
        except (OSError, ImportError):
            self.close()

    def submit(self, job: FileJob) -> bool:
        """Queue ``job``; False when the pool cannot take it (the caller checks it itself)."""
        if self._executor is None:
            return False
        try:
            self._submitted.append((job, self._executor.submit(check_file, job)))
        except (OSError, RuntimeError):  # a broken pool refuses work with a RuntimeError
            self.close()
            return False
        return True

    def results(self) -> list[FileResult]:
        """What each queued job gave; a job the pool lost (a worker died, or the pool was shut when
        it broke) is checked here."""
        from concurrent.futures import CancelledError
        from concurrent.futures.process import BrokenProcessPool

        results = []
        for job, future in self._submitted:
            try:
                results.append(future.result())
            except (OSError, BrokenProcessPool, ImportError, CancelledError):
                results.append(check_file(job))
        return results

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._executor = None
