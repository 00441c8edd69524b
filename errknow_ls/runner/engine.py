"""Check files one by one, or on two processes when there are many; results in a stable order."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from errknow_ls.analysis.cells import CellProgram
from errknow_ls.analysis.prefilter import might_find
from errknow_ls.core import Edit, Finding
from errknow_ls.core.collector import collect_rarely
from errknow_ls.project import RuleSelection
from errknow_ls.project.results_cache import content_digest
from errknow_ls.runner.fixing import fix_until_stable
from errknow_ls.runner.notebooks import Notebook, is_notebook, parse_notebook
from errknow_ls.runner.sourcefile import (
    SourceChanged,
    SourceFile,
    SourceFileError,
    decode_source,
    read_bytes,
    read_source_file,
    with_newline,
    write_source,
)

PARALLEL_THRESHOLD = 16
"""More files than this are checked on a process pool; fewer are not worth its start-up."""
MAX_WORKERS = 2

if TYPE_CHECKING:
    from errknow_ls.analysis import CheckResult
    from errknow_ls.analysis.modules import Dependency, ModuleSource


def check_source(
    text: str,
    *,
    select: Collection[str] | None = None,
    ignore: Collection[str] = (),
    modules: ModuleSource | None = None,
) -> CheckResult:
    """The checker, imported on first use: a run that the cache answers whole never loads it."""
    from errknow_ls.analysis import checker  # noqa: PLC0415 (lazy: see the docstring)

    return checker.check_source(text, select=select, ignore=ignore, modules=modules)


@dataclass(frozen=True, slots=True)
class FileJob:
    path: Path
    rules: RuleSelection
    fix: bool = False
    unsafe_fixes: bool = False
    write: bool = True
    """With ``fix``: write the fixed file (``--diff`` and standard input only compute it)."""
    data: bytes | None = None
    """The file's bytes when they come from elsewhere (standard input); else read from ``path``."""
    roots: tuple[Path, ...] = ()
    """The configured project's import roots, from which its modules import each other."""
    write_inside: tuple[str, ...] | None = None
    """Real paths a fixed file's own real path must be (or be below) to be written; ``None``: any."""
    write_hard_links: bool = False
    """Rewrite a file with other names (hard links) in place; else it is not written."""
    summaries: Path | None = None
    """The cache directory whose summaries of the project's functions the check reuses and adds to
    (``errknow_ls.project.summaries``); None: this process's alone."""
    run: str | None = None
    """The run of ``check_files`` the job is part of: its checks see one layout of the project and
    share what resolving imports found (see ``ModuleSource.layout``)."""


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
    cells: tuple[int, ...] = ()
    """A notebook's: the code cell (0-based, counting code cells) each finding is in, whose own
    lines its positions count."""
    original: str | None = None
    """The file's text as read, when a fix was computed (``--fix``, ``--diff``)."""
    fixed_text: str | None = None
    """What ``--fix`` writes (or would write), when it differs from ``original``."""
    fixed_codes: tuple[str, ...] = ()
    """The code of each finding the fixes removed."""
    read: tuple[tuple[str, str], ...] = ()
    """The project's other modules the check read, with the hash of each text: the result stands
    while they say the same."""

    @property
    def notebook(self) -> bool:
        return is_notebook(self.path)


def check_file(job: FileJob) -> FileResult:
    """Check (and fix) one file; a failure of the checker itself fails this file, not the run."""
    try:
        return _check_file(job)
    except Exception as exc:  # any checker bug: report it and go on with the other files
        return FileResult(job.path, error=f"internal error: {type(exc).__name__}: {exc}")


def _check_file(job: FileJob) -> FileResult:
    try:
        source = read_source_file(job.path) if job.data is None else decode_source(job.path, job.data)
        if is_notebook(job.path):
            return _check_notebook(job, source, parse_notebook(source.text))
    except SourceFileError as exc:
        return FileResult(job.path, error=str(exc))
    data = source.origin.data if source.origin else source.text.encode(source.encoding)

    from errknow_ls.project.modules import ProjectModules  # noqa: PLC0415 (loads part of the checker: see check_source)
    from errknow_ls.project.summaries import disk_summaries  # noqa: PLC0415 (the same)

    kept = disk_summaries(job.summaries) if job.summaries is not None else None
    modules = ProjectModules.for_file(job.path, job.roots, summaries=kept, run=job.run)
    read: list[Dependency] = []

    def check(text: str) -> tuple[list[Finding], list[str]]:
        result = check_source(text, select=job.rules.select, ignore=job.rules.ignore, modules=modules)
        read.extend(result.read)
        return [_spelled_for(f, source.newline) for f in result.findings], list(result.errors)

    def unfixed() -> FileResult:
        findings, errors = check(source.text)
        reads = tuple(dict.fromkeys((d.key, d.digest) for d in read))
        return FileResult(job.path, findings, check_errors=errors, digest=content_digest(data), read=reads)

    if not job.fix:
        return unfixed()
    outcome = fix_until_stable(source.text, check, job.unsafe_fixes)
    result = FileResult(
        job.path,
        outcome.findings,
        outcome.fixed,
        outcome.errors,
        outcome.warnings,
        original=source.text,
        fixed_text=None if outcome.text == source.text else outcome.text,
        fixed_codes=outcome.fixed_codes,
    )
    return _written(job, source, result, unfixed)


def _written(
    job: FileJob, source: SourceFile, result: FileResult, unfixed: Callable[[], FileResult]
) -> FileResult:
    """``result``, once its fixed text is written (when the job writes)."""
    if result.fixed_text is None or not job.write:
        return result
    try:
        write_source(source, result.fixed_text, job.write_inside, hard_links=job.write_hard_links)
    except SourceChanged as exc:
        # What was found is about text the file no longer holds.
        return FileResult(job.path, error=str(exc))
    except SourceFileError as exc:
        # Nothing was written, so everything found before fixing still stands.
        return dataclasses.replace(unfixed(), warnings=result.warnings, digest=None, error=str(exc))
    return result


def _check_notebook(job: FileJob, source: SourceFile, notebook: Notebook) -> FileResult:
    """The notebook's code cells checked as one program; fixes applied to the cells they stay in."""
    program = CellProgram.join(notebook.sources())

    def check(text: str) -> tuple[list[Finding], list[str]]:
        cells = program.split(text)  # where the cells are now, after some fixes
        current = program if cells is None else CellProgram.join(cells)
        result = check_source(text, select=job.rules.select, ignore=job.rules.ignore)
        return [current.within_cells(f) for f in result.findings], list(result.errors)

    def unfixed() -> FileResult:
        findings, errors = check(program.text)
        located = [program.to_cell(program.name_cells(f)) for f in findings]
        data = source.origin.data if source.origin else source.text.encode(source.encoding)
        return FileResult(
            job.path,
            [f for _, f in located],
            check_errors=errors,
            digest=content_digest(data),
            cells=tuple(c for c, _ in located),
        )

    if not job.fix:
        return unfixed()
    outcome = fix_until_stable(program.text, check, job.unsafe_fixes)
    cells = program.split(outcome.text)
    if cells is None:  # a fix moved a cell boundary or a magic: nothing can be written back
        return dataclasses.replace(
            unfixed(), warnings=[*outcome.warnings, "the fixes would move a cell boundary"]
        )
    fixed = CellProgram.join(cells)
    located = [fixed.to_cell(fixed.name_cells(f)) for f in outcome.findings]
    result = FileResult(
        job.path,
        [f for _, f in located],
        outcome.fixed,
        outcome.errors,
        outcome.warnings,
        cells=tuple(c for c, _ in located),
        original=source.text,
        fixed_text=None if cells == notebook.sources() else notebook.with_sources(cells),
        fixed_codes=outcome.fixed_codes,
    )
    return _written(job, source, result, unfixed)


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

    This process reads every file and settles those where no finding can be (no word a backward
    needs, and no import through which the project's own code could run one); the rest go to the
    checker as they are found, on a pool of processes when there are enough files to pay for one.
    The pool starts first, so that its workers load the checker while this process reads.
    """
    run = os.urandom(16).hex()  # (what uuid4 is made of, without importing uuid)
    jobs = [job if job.run is not None else dataclasses.replace(job, run=run) for job in jobs]
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
    """The result of a file read here when it cannot hold a finding (the checker's own first
    test, on bytes) or cannot be read; else None."""
    try:
        data = read_bytes(job.path)
        if is_notebook(job.path):  # a file that is no notebook is an error, whatever it holds
            parse_notebook(decode_source(job.path, data).text)
        elif not data.isascii() or b"coding" in _first_two_lines(data):  # ASCII decodes as anything
            decode_source(job.path, data)
    except SourceFileError as exc:
        return FileResult(job.path, error=str(exc))
    if might_find(data, follows_imports=not is_notebook(job.path)):  # a notebook is checked alone
        return None
    return FileResult(job.path, digest=content_digest(data))


def _first_two_lines(data: bytes) -> bytes:
    """Where a coding cookie can be."""
    second = data.find(b"\n", data.find(b"\n") + 1)
    return data if second < 0 else data[:second]


def _worth_a_pool(files: int) -> bool:
    return files > PARALLEL_THRESHOLD and (os.cpu_count() or 1) > 1


def _start_worker() -> None:
    collect_rarely()
    _limit_memory()


def _limit_memory() -> None:
    """Let a worker take its share of the machine's memory and no more. A file whose check outgrows
    it then fails alone, with a MemoryError (``check_file``); a worker the kernel kills instead
    loses every file queued with it, which this process checks again itself, where the same file
    can take down the whole run (one file of the real-code corpus took the check's main process
    to 23.7 GB before the analysis had a budget of graph nodes)."""
    try:
        import resource  # noqa: PLC0415 (not on Windows)

        share = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (MAX_WORKERS + 1)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            share = min(share, hard)
        if soft == resource.RLIM_INFINITY or soft > share:
            resource.setrlimit(resource.RLIMIT_AS, (share, hard))
    except (ImportError, ValueError, OSError):
        pass  # no such limit here: the worker runs as before


def _warm() -> None:
    """Start a worker, with the checker loaded, while the parent still reads files (the pool starts
    its processes on the first jobs; forked from a forkserver that preloaded the checker, a worker
    has it already, and a spawned one loads it here)."""
    from errknow_ls.analysis import checker  # noqa: F401, PLC0415 (loads it in the worker)


class _Pool:
    """A pool of MAX_WORKERS processes, started at once, that checks one file at a time (a few
    files cost most). Where no pool can be had (no semaphores) or a worker dies, the files are
    checked in this process instead."""

    def __init__(self) -> None:
        # Imported here: a run that checks few files (or none, all cached) never starts a pool.
        import concurrent.futures  # noqa: PLC0415
        import multiprocessing  # noqa: PLC0415

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
            self._executor = concurrent.futures.ProcessPoolExecutor(
                MAX_WORKERS, mp_context=context, initializer=_start_worker
            )
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
        # Imported with the pool (see __init__).
        from concurrent.futures import CancelledError  # noqa: PLC0415
        from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

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
