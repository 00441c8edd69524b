"""Check files one by one, or on two processes when there are many; results in a stable order."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from errknow_ls.core import Edit, Finding
from errknow_ls.runner.fixing import fix_until_stable
from errknow_ls.runner.options import RuleSelection
from errknow_ls.runner.sourcefile import (
    SourceError,
    content_digest,
    decode_source,
    read_bytes,
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
        data = read_bytes(job.path)
        source = decode_source(job.path, data)
    except SourceError as exc:
        return FileResult(job.path, error=str(exc))

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
        write_source(source, outcome.text)
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
    """Every job's result, sorted by path whatever order the workers finish in."""
    results = _in_parallel(jobs) if _worth_a_pool(jobs) else None
    if results is None:
        results = [check_file(job) for job in jobs]
    return sorted(results, key=lambda r: str(r.path))


def _worth_a_pool(jobs: Sequence[FileJob]) -> bool:
    return len(jobs) > PARALLEL_THRESHOLD and (os.cpu_count() or 1) > 1


def _in_parallel(jobs: Sequence[FileJob]) -> list[FileResult] | None:
    """``None`` when no pool can be had here (no semaphores, a worker died): the caller goes on alone."""
    # Imported here: a run that checks few files (or none, all cached) never starts a pool.
    import concurrent.futures
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    # forkserver, not fork: forking a process that may have threads (a test runner, an editor
    # host) can deadlock, and Python warns about it.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    chunk = max(1, min(32, len(jobs) // (MAX_WORKERS * 16)))  # small: a few files cost most
    try:
        with concurrent.futures.ProcessPoolExecutor(MAX_WORKERS, mp_context=context) as pool:
            return list(pool.map(check_file, jobs, chunksize=chunk))
    except (OSError, BrokenProcessPool, ImportError):
        return None
