"""One ``check`` run: settings, rules, files, results, output, exit code."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from errknow_ls.core.findings import NOT_FULLY_CHECKED
from errknow_ls.runner.cache import CACHE_DIRNAME, CheckCache, cache_key, check_files_cached
from errknow_ls.runner.config import ProjectSettings, load_settings
from errknow_ls.runner.discovery import DEFAULT_EXCLUDE, Excluder, discover
from errknow_ls.runner.engine import FileJob, FileResult
from errknow_ls.runner.formats import render
from errknow_ls.runner.options import (
    CheckOptions,
    ExitCode,
    OptionError,
    RuleSelection,
    resolve_selectors,
    split_selectors,
)
from errknow_ls.runner.report import Notice, NoticeKind, Report
from errknow_ls.runner.sourcefile import remove_stale_temps

if TYPE_CHECKING:
    from errknow_ls.kb import KnowledgeBase

INTERNAL_ERROR = "internal error"


def run_check(options: CheckOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``errknow-ls check`` as ``options`` say; print to ``out`` / ``err``; return the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    paths = list(options.paths) or [Path()]
    settings = load_settings(paths[0])
    for warning in settings.warnings:
        print(warning, file=err)
    try:
        rules = rule_selection(options, settings, err)
    except OptionError as exc:
        print(f"error: {exc}", file=err)
        return ExitCode.ERROR
    # Later wins by id: --records, then the project's ([tool.errknow] records, .errknow/records).
    kb = knowledge_base([*(options.records or []), *settings.record_dirs()], err)
    patterns = (
        *(DEFAULT_EXCLUDE if settings.exclude is None else settings.exclude),
        *settings.extend_exclude,
    )
    found = discover(paths, Excluder(patterns, settings.root))
    notices = [Notice(path, NoticeKind.ERROR, problem) for path, problem in found.errors]
    if options.fix:
        for folder in sorted({file.resolve().parent for file in found.files}):
            for stale in remove_stale_temps(folder):
                print(f"{stale}: removed, a temporary file of an interrupted --fix run", file=err)
    inside = None if options.fix_symlink_targets else tuple(os.path.realpath(path) for path in paths)
    jobs = [FileJob(path, rules, options.fix, options.unsafe_fixes, inside) for path in found.files]
    directory = cache_directory(options, settings)
    cache = None if directory is None else CheckCache(directory, cache_key(rules))
    if cache is not None and cache.problem is not None:
        print(cache.problem, file=err)
    results = check_files_cached(jobs, cache)
    cache_problem = None if cache is None else cache.save()
    if cache_problem is not None:
        print(cache_problem, file=err)
    notices += [notice for result in results for notice in notices_of(result)]
    for notice in notices:
        print(notice, file=err)
    if any(result.findings for result in results):
        warn_unknown_records(results, kb(), err)
    report = Report(results, kb, options.fix, options.unsafe_fixes, notices)
    out.write(render(options.output_format, report, Path.cwd()))
    if report.failed:
        return ExitCode.ERROR
    if report.remaining and not options.exit_zero:
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
    """The checker reports syntax errors, its own failures and its limits alike; only the first
    are the file's."""
    if error.startswith(INTERNAL_ERROR):
        return NoticeKind.WARNING
    return NoticeKind.NOTE if error.startswith(NOT_FULLY_CHECKED) else NoticeKind.SYNTAX_ERROR


def warn_unknown_records(results: Sequence[FileResult], kb: KnowledgeBase, err: TextIO) -> None:
    """Every finding names a record; one missing from the loaded records is worth a warning, once."""
    missing = sorted(
        {(f.code, f.record_id) for result in results for f in result.findings if f.record_id not in kb}
    )
    for code, record_id in missing:
        print(f"warning: {code}: record {record_id!r} is not in the knowledge base", file=err)
