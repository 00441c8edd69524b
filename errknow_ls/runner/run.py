"""One ``check`` run: settings, rules, files, results, output, exit code."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from errknow_ls.runner.cache import CACHE_DIRNAME, CheckCache, cache_key, check_files_cached
from errknow_ls.runner.config import ProjectSettings, load_settings
from errknow_ls.runner.discovery import DEFAULT_EXCLUDE, Excluder, discover
from errknow_ls.runner.engine import FileJob, FileResult, check_file, check_files
from errknow_ls.runner.formats import diff, render, statistics
from errknow_ls.runner.notebooks import is_notebook
from errknow_ls.runner.options import (
    CheckOptions,
    ExitCode,
    OptionError,
    OutputFormat,
    RuleSelection,
    resolve_selectors,
    split_selectors,
)
from errknow_ls.runner.report import Notice, NoticeKind, Report
from errknow_ls.runner.sourcefile import remove_stale_temps

if TYPE_CHECKING:
    from errknow_ls.kb import KnowledgeBase

INTERNAL_ERROR = "internal error"
STDIN_NAME = "-"


def run_check(options: CheckOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``errknow-ls check`` as ``options`` say; print to ``out`` / ``err``; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    paths = list(options.paths) or [Path()]
    settings = load_settings(options.stdin_filename or paths[0])
    for warning in settings.warnings:
        print(warning, file=err)
    try:
        rules = rule_selection(options, settings, err)
    except OptionError as exc:
        print(f"error: {exc}", file=err)
        return ExitCode.ERROR
    # Later wins by id: --records, then the project's ([tool.errknow] records, .errknow/records).
    kb = knowledge_base([*(options.records or []), *settings.record_dirs()], err)
    if options.stdin is not None:
        return _check_stdin(options, rules, kb, out, err)
    patterns = (
        *(DEFAULT_EXCLUDE if settings.exclude is None else settings.exclude),
        *settings.extend_exclude,
    )
    found = discover(paths, Excluder(patterns, settings.root))
    notices = [Notice(path, NoticeKind.ERROR, problem) for path, problem in found.errors]
    if options.fix and not options.diff:
        for folder in sorted({file.resolve().parent for file in found.files}):
            for stale in remove_stale_temps(folder):
                print(f"{stale}: removed, a temporary file of an interrupted --fix run", file=err)
    fixing = options.fix or options.diff
    jobs = [
        FileJob(path, rules, fixing, options.unsafe_fixes, write=not options.diff) for path in found.files
    ]
    directory = cache_directory(options, settings)
    cache = None if directory is None else CheckCache(directory, cache_key(rules))
    results = _checked(jobs, cache)
    cache_problem = None if cache is None else cache.save()
    if cache_problem is not None:
        print(cache_problem, file=err)
    notices += [notice for result in results for notice in notices_of(result)]
    for notice in notices:
        print(notice, file=err)
    if any(result.findings for result in results):
        warn_unknown_records(results, kb(), err)
    report = Report(results, kb, options.fix, options.unsafe_fixes, notices)
    if options.diff:
        return _print_diff(report, out, err)
    _print_report(options, report, out)
    return exit_code(options, report)


def _checked(jobs: Sequence[FileJob], cache: CheckCache | None) -> list[FileResult]:
    """Every job's result, sorted by path; notebooks are never cached (their findings' cells are not
    part of a cache entry)."""
    notebooks = [job for job in jobs if is_notebook(job.path)]
    if not notebooks:
        return check_files_cached(jobs, cache)
    files = [job for job in jobs if not is_notebook(job.path)]
    results = [*check_files_cached(files, cache), *check_files(notebooks)]
    return sorted(results, key=lambda r: str(r.path))


def _check_stdin(
    options: CheckOptions, rules: RuleSelection, kb: Callable[[], KnowledgeBase], out: TextIO, err: TextIO
) -> int:
    """The file on standard input, named ``--stdin-filename``: with ``--fix``, its fixed text goes to
    ``out`` (as ruff does) and what remains to ``err``; with ``--diff``, the diff goes to ``out``."""
    name = options.stdin_filename or Path(STDIN_NAME)
    fixing = options.fix or options.diff
    job = FileJob(name, rules, fixing, options.unsafe_fixes, write=False, data=options.stdin)
    result = check_file(job)
    notices = notices_of(result)
    for notice in notices:
        print(notice, file=err)
    report = Report([result], kb, options.fix, options.unsafe_fixes, notices)
    if options.diff:
        return _print_diff(report, out, err)
    if options.fix and result.error is None:
        out.write(result.fixed_text or result.original or "")
        _print_report(options, report, err)
    else:
        _print_report(options, report, out)
    return exit_code(options, report)


def _print_report(options: CheckOptions, report: Report, out: TextIO) -> None:
    output_format = options.output_format or OutputFormat.CONCISE
    if options.statistics:
        json_like = output_format in {OutputFormat.JSON, OutputFormat.JSON_LINES}
        out.write((statistics.render_json if json_like else statistics.render)(report, Path.cwd()))
        return
    out.write(render(output_format, report, Path.cwd()))
    if options.show_fixes and output_format in {OutputFormat.CONCISE, OutputFormat.FULL}:
        out.write(statistics.fixed_listing(report))


def _print_diff(report: Report, out: TextIO, err: TextIO) -> int:
    """``--diff``: the diff on ``out``, a count on ``err``; exit 1 when there is anything to fix."""
    out.write(diff.render(report))
    would = sum(result.fixed for result in report.results)
    if report.failed:
        return ExitCode.ERROR
    if would:
        print(f"Would fix {would} error{'' if would == 1 else 's'}.", file=err)
        return ExitCode.FOUND
    print("No errors would be fixed.", file=err)
    return ExitCode.OK


def exit_code(options: CheckOptions, report: Report) -> int:
    if report.failed:
        return ExitCode.ERROR
    if report.remaining and not options.exit_zero:
        return ExitCode.FOUND
    if options.exit_non_zero_on_fix and report.fixed:
        return ExitCode.FOUND
    return ExitCode.OK


def cache_directory(options: CheckOptions, settings: ProjectSettings) -> Path | None:
    """``--cache-dir``, else ``cache-dir`` in ``[tool.errknow]``, else ``.errknow_cache`` at the
    project root (the current directory outside a project); ``None`` with ``--no-cache``."""
    if options.no_cache:
        return None
    if options.cache_dir is not None:
        return options.cache_dir
    if settings.cache_dir is not None:
        return settings.cache_dir
    return (settings.root or Path.cwd()) / CACHE_DIRNAME


def rule_selection(options: CheckOptions, settings: ProjectSettings, err: TextIO) -> RuleSelection:
    """Command-line selectors win over the project's; an unknown one is an error on the command
    line and a warning in ``pyproject.toml``."""
    select = _selectors(options.select, settings.select, "select", err)
    ignore = _selectors(options.ignore, settings.ignore, "ignore", err) or frozenset()
    return RuleSelection(select, ignore)


def _selectors(
    given: Sequence[str] | None, configured: Sequence[str] | None, key: str, err: TextIO
) -> frozenset[str] | None:
    if given is not None:
        codes, unknown = resolve_selectors(split_selectors(given))
        if unknown:
            raise OptionError(f"--{key}: no rule matches {', '.join(repr(u) for u in unknown)}")
        return codes
    if configured is None:
        return None
    codes, unknown = resolve_selectors(configured)
    if unknown:
        names = ", ".join(repr(u) for u in unknown)
        print(f"warning: [tool.errknow] {key}: no rule matches {names}; ignored", file=err)
        if not codes:
            return None
    return codes


def knowledge_base(directories: Sequence[Path], err: TextIO) -> Callable[[], KnowledgeBase]:
    """The knowledge base, loaded when first needed: a run whose files are all cached and clean
    needs none. Record directories of the user's are loaded now, as their problems are worth a
    warning on every run."""
    if directories:
        kb = load_kb(directories, err)
        return lambda: kb
    return functools.cache(lambda: load_kb(directories, err))


def load_kb(directories: Sequence[Path], err: TextIO) -> KnowledgeBase:
    from errknow_ls.kb import KnowledgeBase

    kb = KnowledgeBase.load(directories)
    for problem in kb.problems:
        print(f"warning: {problem}", file=err)
    return kb


def notices_of(result: FileResult) -> list[Notice]:
    notices = [Notice(result.path, _kind_of(error), error) for error in result.check_errors]
    notices += [Notice(result.path, NoticeKind.WARNING, warning) for warning in result.warnings]
    if result.error is not None:
        notices.append(Notice(result.path, NoticeKind.ERROR, result.error))
    return notices


def _kind_of(error: str) -> NoticeKind:
    """The checker reports syntax errors and its own failures alike; only the first are the file's."""
    return NoticeKind.WARNING if error.startswith(INTERNAL_ERROR) else NoticeKind.SYNTAX_ERROR


def warn_unknown_records(results: Sequence[FileResult], kb: KnowledgeBase, err: TextIO) -> None:
    """Every finding names a record; one missing from the loaded records is worth a warning, once."""
    missing = sorted(
        {(f.code, f.record_id) for result in results for f in result.findings if f.record_id not in kb}
    )
    for code, record_id in missing:
        print(f"warning: {code}: record {record_id!r} is not in the knowledge base", file=err)
