"""One ``check`` run: settings, rules, files, results, output, exit code."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from errknow_ls.analysis.registry import RULES
from errknow_ls.core.findings import NOT_FULLY_CHECKED, Finding
from errknow_ls.project import (
    PerFileIgnores,
    ProjectSettings,
    RuleSelection,
    Selectors,
    discover,
    import_roots,
    load_settings,
    select_rules,
)
from errknow_ls.project.results_cache import cache_directory as project_cache_directory
from errknow_ls.project.results_cache import cache_key
from errknow_ls.runner.cache import CheckCache, check_files_cached
from errknow_ls.runner.engine import FileJob, FileResult, check_file
from errknow_ls.runner.formats import render
from errknow_ls.runner.options import (
    CheckOptions,
    ExitCode,
    OptionError,
    OutputFormat,
    output_format,
)
from errknow_ls.runner.report import Notice, NoticeKind, Report
from errknow_ls.runner.sourcefile import (
    SourceFileError,
    complete_interrupted_rewrites,
    decode_source,
    remove_stale_temps,
)

if TYPE_CHECKING:
    from errknow_ls.kb import KnowledgeBase

INTERNAL_ERROR = "internal error"
STDIN_NAME = "-"


def _first(flag: bool | None, setting: bool | None, *, default: bool) -> bool:
    """The flag when given, else the setting when set, else the default."""
    if flag is not None:
        return flag
    return default if setting is None else setting


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
        chosen_format = options.output_format or configured_format(settings)
    except OptionError as exc:
        print(f"error: {exc}", file=err)
        return ExitCode.ERROR
    options = dataclasses.replace(options, output_format=chosen_format)
    per_file = per_file_ignores(settings, err)
    # Later wins by id: --records, then the project's ([tool.errknow] records, .errknow/records).
    record_dirs = [*(options.records or []), *settings.record_dirs()]
    kb = knowledge_base(record_dirs, err)
    only_built_in = not record_dirs
    force_exclude = _first(options.force_exclude, settings.force_exclude, default=False)
    if options.stdin is not None:
        name = options.stdin_filename
        if force_exclude and name is not None and settings.excluder().excludes_given(name):
            passed = _pass_excluded_stdin(options, name, kb, out, err)
            if passed is not None:
                return passed
        return _check_stdin(options, per_file.rules_for(options.stdin_filename, rules), kb, out, err)
    found = discover(
        paths,
        settings.excluder(),
        respect_gitignore=_first(options.respect_gitignore, settings.respect_gitignore, default=True),
        force_exclude=force_exclude,
    )
    notices = [Notice(path, NoticeKind.ERROR, problem) for path, problem in found.errors]
    if options.fix and not options.diff:
        for folder in sorted({file.resolve().parent for file in found.files}):
            for done in complete_interrupted_rewrites(folder):
                print(done, file=err)
            for stale in remove_stale_temps(folder):
                print(f"{stale}: removed, a temporary file of an interrupted --fix run", file=err)
    # Where the project's modules are imported from ([tool.setuptools] & co., src/, the root).
    roots = tuple(import_roots(settings.root)) if settings.root is not None else ()
    inside = None if options.fix_symlink_targets else tuple(os.path.realpath(path) for path in paths)
    fixing = options.fix or options.diff
    directory = cache_directory(options, settings)
    job = functools.partial(
        _file_job,
        rules=rules,
        per_file=per_file,
        fixing=fixing,
        options=options,
        roots=roots,
        inside=inside,
        summaries=directory,
    )
    cache = None if directory is None else CheckCache(directory, cache_key(rules))
    if cache is not None and cache.problem is not None:
        print(cache.problem, file=err)
    checked = check_files_cached(found.names, job, cache, fixing=fixing, unsafe_fixes=options.unsafe_fixes)
    results = said_once([without_ignored(result, per_file) for result in checked])
    cache_problem = None if cache is None else cache.save()
    if cache_problem is not None:
        print(cache_problem, file=err)
    notices += [notice for result in results for notice in notices_of(result)]
    for notice in notices:
        print(notice, file=err)
    if any(result.findings for result in results) and not (
        only_built_in and names_only_rules_records(results)
    ):
        warn_unknown_records(results, kb(), err)
    report = Report(results, kb, options.fix, options.unsafe_fixes, notices)
    if options.diff:
        return _print_diff(report, out, err)
    _print_report(options, report, out)
    return exit_code(options, report)


def _file_job(
    path: Path,
    *,
    rules: RuleSelection,
    per_file: PerFileIgnores,
    fixing: bool,
    options: CheckOptions,
    roots: tuple[Path, ...],
    inside: tuple[str, ...] | None,
    summaries: Path | None,
) -> FileJob:
    """What checking ``path`` is. A fix must not touch what ``per-file-ignores`` ignores there; a
    plain check runs every file with the same rules (what the cache keeps), and what a file ignores
    is dropped from its result."""
    return FileJob(
        path,
        per_file.rules_for(path, rules) if fixing else rules,
        fixing,
        options.unsafe_fixes,
        write=not options.diff,
        roots=roots,
        write_inside=inside,
        write_hard_links=options.fix_hard_links,
        summaries=summaries,
    )


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


def _pass_excluded_stdin(
    options: CheckOptions, name: Path, kb: Callable[[], KnowledgeBase], out: TextIO, err: TextIO
) -> int | None:
    """``--force-exclude`` with an excluded ``--stdin-filename``: nothing is checked, and ``--fix``
    gives the input back unchanged (as ruff does). ``None`` when the input does not decode: the
    check says why."""
    try:
        text = decode_source(name, options.stdin or b"").text
    except SourceFileError:
        return None
    report = Report([], kb, options.fix, options.unsafe_fixes, [])
    if options.diff:
        return _print_diff(report, out, err)
    if options.fix:
        out.write(text)
        _print_report(options, report, err)
    else:
        _print_report(options, report, out)
    return exit_code(options, report)


def _print_report(options: CheckOptions, report: Report, out: TextIO) -> None:
    chosen = options.output_format or OutputFormat.CONCISE
    if options.statistics:
        from errknow_ls.runner.formats import statistics  # noqa: PLC0415 (as every format: on use)

        json_like = chosen in {OutputFormat.JSON, OutputFormat.JSON_LINES}
        out.write((statistics.render_json if json_like else statistics.render)(report, Path.cwd()))
        return
    out.write(render(chosen, report, Path.cwd()))
    if options.show_fixes and chosen in {OutputFormat.CONCISE, OutputFormat.FULL}:
        from errknow_ls.runner.formats.statistics import fixed_listing  # noqa: PLC0415

        out.write(fixed_listing(report))


def _print_diff(report: Report, out: TextIO, err: TextIO) -> int:
    """``--diff``: the diff on ``out``, a count on ``err``; exit 1 when there is anything to fix."""
    from errknow_ls.runner.formats import diff  # noqa: PLC0415 (as every format: on use)

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
    """The project's cache directory (``--cache-dir`` first); ``None`` with ``--no-cache``."""
    return None if options.no_cache else project_cache_directory(settings, options.cache_dir)


def rule_selection(options: CheckOptions, settings: ProjectSettings, err: TextIO) -> RuleSelection:
    """Command-line selectors win over the project's (``select_rules``); an unknown one is an
    error on the command line and a warning in ``pyproject.toml``."""
    given = Selectors(options.select, options.ignore, options.extend_select)
    rules, unknown = select_rules(given, settings.selectors())
    for mistake in unknown:
        if mistake.given:
            raise OptionError(f"--{mistake.key}: no rule matches {mistake.describe()}")
        described = mistake.describe()
        print(f"warning: [tool.errknow] {mistake.key}: no rule matches {described}; ignored", file=err)
    return rules


def configured_format(settings: ProjectSettings) -> OutputFormat:
    """``output-format`` in ``[tool.errknow]``, else concise; a name no format has is an error."""
    if settings.output_format is None:
        return OutputFormat.CONCISE
    try:
        return output_format(settings.output_format)
    except ValueError:
        names = ", ".join(OutputFormat)
        raise OptionError(
            f"[tool.errknow] output-format: {settings.output_format!r} is not one of {names}"
        ) from None


def per_file_ignores(settings: ProjectSettings, err: TextIO) -> PerFileIgnores:
    """``per-file-ignores``; a selector that names no rule is a warning."""
    per_file, unknown = PerFileIgnores.resolve(settings.root, settings.per_file_ignores)
    for glob, names in unknown:
        print(f"warning: {PerFileIgnores.describe_unknown(glob, names)}", file=err)
    return per_file


def said_once(results: list[FileResult]) -> list[FileResult]:
    """``results`` without a finding on a call that reaches a backward in another module which that
    module's own result reports where it raises, with the same code: one bug, said once, where
    torch's traceback ends (a file checked alone still says it at the call)."""
    raising = {
        (os.path.realpath(result.path), finding.span.start.line, finding.code)
        for result in results
        for finding in result.findings
    }

    def repeated(finding: Finding) -> bool:
        there = finding.raises_elsewhere
        return (
            there is not None
            and (os.path.realpath(there.path or ""), there.span.start.line, finding.code) in raising
        )

    return [_keeping(result, lambda finding: not repeated(finding)) for result in results]


def without_ignored(result: FileResult, per_file: PerFileIgnores) -> FileResult:
    """``result`` without the findings ``per-file-ignores`` ignores in its file."""
    if not result.findings:
        return result
    codes = per_file.codes_for(result.path)
    if not codes:
        return result
    return _keeping(result, lambda finding: finding.code not in codes)


def _keeping(result: FileResult, keep: Callable[[Finding], bool]) -> FileResult:
    """``result`` with only the findings ``keep`` accepts (a notebook's cells kept in step); the
    same result where it accepts them all."""
    kept = [i for i, finding in enumerate(result.findings) if keep(finding)]
    if len(kept) == len(result.findings):
        return result
    return dataclasses.replace(
        result,
        findings=[result.findings[i] for i in kept],
        cells=tuple(result.cells[i] for i in kept) if result.cells else (),
    )


def knowledge_base(directories: Sequence[Path], err: TextIO) -> Callable[[], KnowledgeBase]:
    """The knowledge base, loaded when first needed: a run whose files are all cached and clean
    needs none. Record directories of the user's are loaded now, as their problems are worth a
    warning on every run."""
    if directories:
        kb = load_kb(directories, err)
        return lambda: kb
    return functools.cache(lambda: load_kb(directories, err))


def load_kb(directories: Sequence[Path], err: TextIO) -> KnowledgeBase:
    # Imported when first needed (see knowledge_base): pydantic and the records cost a clean run.
    from errknow_ls.kb import KnowledgeBase  # noqa: PLC0415

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


def names_only_rules_records(results: Sequence[FileResult]) -> bool:
    """Every finding names its rule's record, which the built-in records hold (a test of the rules
    holds them to it): then a run with no records of the user's need not load them to know."""
    records = {rule.record_id for rule in RULES}
    return all(finding.record_id in records for result in results for finding in result.findings)


def warn_unknown_records(results: Sequence[FileResult], kb: KnowledgeBase, err: TextIO) -> None:
    """Every finding names a record; one missing from the loaded records is worth a warning, once."""
    missing = sorted(
        {(f.code, f.record_id) for result in results for f in result.findings if f.record_id not in kb}
    )
    for code, record_id in missing:
        print(f"warning: {code}: record {record_id!r} is not in the knowledge base", file=err)
