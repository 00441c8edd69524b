"""The ``errknow-ls`` command line: check, rule, explain, records, serve."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from errknow_ls import __version__

if TYPE_CHECKING:
    from errknow_ls.kb import KnowledgeBase

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2


PROJECT_RECORDS = "the project's ([tool.errknow] records, then .errknow/records)"


def _records_option(parser: argparse.ArgumentParser, before: str = PROJECT_RECORDS) -> None:
    parser.add_argument(
        "--records",
        metavar="DIR",
        action="append",
        type=Path,
        default=[],
        help=f"extra record directory, after the built-in records and before {before} "
        "(repeatable; later wins by id)",
    )


def _record_dirs(given: Sequence[Path]) -> list[Path]:
    """``--records``, then the project's around the current directory: ``records`` in its
    ``[tool.errknow]`` and its ``.errknow/records/``. Later wins by id."""
    from errknow_ls.project import load_settings

    settings = load_settings(Path())
    for warning in settings.warnings:
        print(warning, file=sys.stderr)
    return list(dict.fromkeys([*given, *settings.record_dirs()]))


def _load_kb(given: Sequence[Path]) -> KnowledgeBase:
    # Imported here, as in every command: `check` on cached files needs no knowledge base at all.
    from errknow_ls.kb import KnowledgeBase

    kb = KnowledgeBase.load(_record_dirs(given))
    for problem in kb.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return kb


def cmd_records_lint(args: argparse.Namespace) -> int:
    from errknow_ls.kb import KnowledgeBase
    from errknow_ls.kb.lint import lint
    from errknow_ls.kb.loader import builtin_records_dir

    dirs = args.dirs or [builtin_records_dir()]
    known = KnowledgeBase.load([], builtin=True)
    problems = lint(dirs, known_ids=[r.id for r in known.records])
    for problem in problems:
        print(problem)
    count = len(problems)
    print(f"{count} problem{'s' if count != 1 else ''}" if count else "all records clean", file=sys.stderr)
    return EXIT_FOUND if problems else EXIT_OK


def cmd_records_list(args: argparse.Namespace) -> int:
    kb = _load_kb(args.records)
    if args.format == "markdown":
        from errknow_ls.kb.table import markdown_table

        sys.stdout.write(markdown_table(kb.records))
        return EXIT_OK
    for record in sorted(kb.records, key=lambda r: r.id):
        signature = " ".join(record.signature.split())
        print(f"{record.id}\t{record.verification_tier}\t{record.confidence:.2f}\t{signature[:80]}")
    return EXIT_OK


def cmd_records_show(args: argparse.Namespace) -> int:
    from errknow_ls.kb.explain import ranked_workarounds, rate_phrase

    kb = _load_kb(args.records)
    record = kb.get(args.id)
    if record is None:
        print(f"error: no record {args.id!r}", file=sys.stderr)
        return EXIT_ERROR
    if args.format == "json":
        print(json.dumps(record.dump(), ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"{record.id}  [{record.verification_tier}, confidence {record.confidence:.2f}]")
    print(f"\n{record.signature}\n\nWhy: {record.root_cause}")
    for dead_end in record.dead_ends:
        rate = rate_phrase(dead_end.fail_rate, dead_end.sources, "en", failing=True)
        print(f"\nDon't: {dead_end.action}{rate}\n  {dead_end.why_fails}")
    for _, text in ranked_workarounds(record, "en"):
        print(f"\nDo: {text}")
    if record.official_doc_url:
        print(f"\nDocs: {record.official_doc_url}")
    return EXIT_OK


def cmd_records_schema(_args: argparse.Namespace) -> int:
    from errknow_ls.kb.model import json_schema

    # Byte for byte what records/schema.json holds, so `> records/schema.json` regenerates it.
    print(json.dumps(json_schema(), ensure_ascii=False, indent=2))
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from errknow_ls.core.collector import collect_rarely
    from errknow_ls.runner import CheckOptions, run_check
    from errknow_ls.runner.options import output_format

    collect_rarely()  # this process may check files itself (a few, or where no pool can be had)

    paths = args.paths or [Path()]
    reads_stdin = [str(path) for path in args.paths] == ["-"] or (args.stdin_filename and not args.paths)
    if reads_stdin and args.watch:
        print("error: --watch cannot watch standard input", file=sys.stderr)
        return EXIT_ERROR
    options = CheckOptions(
        paths=paths,
        output_format=None if args.output_format is None else output_format(args.output_format),
        fix=args.fix,
        unsafe_fixes=args.unsafe_fixes,
        diff=args.diff,
        show_fixes=args.show_fixes,
        statistics=args.statistics,
        exit_non_zero_on_fix=args.exit_non_zero_on_fix,
        stdin=sys.stdin.buffer.read() if reads_stdin else None,
        stdin_filename=args.stdin_filename,
        fix_symlink_targets=args.fix_symlink_targets,
        fix_hard_links=args.fix_hard_links,
        select=args.select,
        extend_select=args.extend_select,
        ignore=args.ignore,
        records=args.records,
        exit_zero=args.exit_zero,
        no_cache=args.no_cache,
        cache_dir=args.cache_dir,
        respect_gitignore=args.respect_gitignore,
        force_exclude=args.force_exclude,
    )
    if args.watch:
        from errknow_ls.runner.watch import watch

        return watch(options)
    return run_check(options)


def cmd_rule(args: argparse.Namespace) -> int:
    from errknow_ls.analysis import RULES
    from errknow_ls.analysis.registry import resolve
    from errknow_ls.analysis.rules import documentation

    if args.all == bool(args.code):
        print("error: give a rule code or name, or --all", file=sys.stderr)
        return EXIT_ERROR
    if args.output_format == "markdown":
        from errknow_ls.analysis.registry import markdown_table

        if not args.all:
            print(
                "error: --output-format markdown prints the table of every rule: give --all", file=sys.stderr
            )
            return EXIT_ERROR
        sys.stdout.write(markdown_table())
        return EXIT_OK
    rules = list(RULES) if args.all else resolve(args.code)
    if not rules:
        print(f"error: no rule matches {args.code!r}", file=sys.stderr)
        return EXIT_ERROR
    if args.output_format == "json":
        items = [
            {
                "code": r.code,
                "name": r.name,
                "summary": r.summary,
                "severity": r.severity.value,
                "raises": r.raises,
                "record": r.record_id,
                "explanation": documentation(r.code),
            }
            for r in rules
        ]
        print(json.dumps(items if args.all else items[0], ensure_ascii=False, indent=2))
        return EXIT_OK
    print("\n\n".join(f"# {r.name} ({r.code})\n\n{documentation(r.code)}" for r in rules))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    from errknow_ls.runner.explain import ExplainOptions, run_explain

    options = ExplainOptions(args.sources or ["-"], args.format, args.locale, _record_dirs(args.records))
    return run_explain(options)


def cmd_serve(args: argparse.Namespace) -> int:
    from errknow_ls.lsp.server import run

    return run(records=args.records, tcp=args.tcp)


def _add_records_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    records = commands.add_parser("records", help="list, show and lint knowledge-base records")
    actions = records.add_subparsers(dest="records_command", required=True, metavar="ACTION")
    lint_parser = actions.add_parser("lint", help="check record files; exit 1 on problems")
    lint_parser.add_argument("dirs", nargs="*", type=Path, metavar="DIR")
    lint_parser.set_defaults(func=cmd_records_lint)
    list_parser = actions.add_parser("list", help="list the loaded records")
    list_parser.add_argument(
        "--format",
        choices=["text", "markdown"],
        default="text",
        help="markdown: the table of records the README holds",
    )
    _records_option(list_parser)
    list_parser.set_defaults(func=cmd_records_list)
    show_parser = actions.add_parser("show", help="show one record")
    show_parser.add_argument("id")
    show_parser.add_argument("--format", choices=["text", "json"], default="text")
    _records_option(show_parser)
    show_parser.set_defaults(func=cmd_records_show)
    schema_parser = actions.add_parser(
        "schema", help="print the JSON Schema of a record (records/schema.json)"
    )
    schema_parser.set_defaults(func=cmd_records_schema)


def _add_check_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from errknow_ls.runner.options import FORMAT_ALIASES, OutputFormat

    check = commands.add_parser(
        "check",
        help="find backwards through freed graphs in Python files and notebooks; exit 1 on findings",
        description="Check *.py and *.ipynb files below each PATH (default: .; `-`: standard input). "
        "Exit 0: no findings; 1: findings remain (with --diff: fixes would change something); "
        "2: a path or option was bad.",
    )
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    check.add_argument(
        "--output-format",
        "--format",
        choices=[*OutputFormat, *FORMAT_ALIASES],
        help="how findings are printed (default: concise, or `output-format` in [tool.errknow]; "
        "`text` is concise)",
    )
    check.add_argument("--fix", action="store_true", help="apply safe fixes, rewriting files")
    check.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix, apply unsafe fixes too; show them otherwise"
    )
    check.add_argument(
        "--fix-symlink-targets",
        action="store_true",
        help="with --fix, also rewrite files that symlinks lead to outside the checked paths",
    )
    check.add_argument(
        "--fix-hard-links",
        action="store_true",
        help="with --fix, also rewrite files that have other names (hard links), in place under every "
        "name; a run killed meanwhile is completed by the next --fix run",
    )
    check.add_argument(
        "--diff",
        action="store_true",
        help="print what --fix would change as a unified diff, change nothing; exit 1 when there is any",
    )
    check.add_argument("--show-fixes", action="store_true", help="list what --fix fixed, per file and rule")
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print how many findings of each rule instead of each finding",
    )
    check.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when --fix fixed something, even if nothing remains",
    )
    check.add_argument(
        "--stdin-filename",
        metavar="PATH",
        type=Path,
        help="the name of the file read from standard input (`-`)",
    )
    check.add_argument("--watch", action="store_true", help="check again whenever a checked file changes")
    for name, what in (
        ("select", "report only these"),
        ("extend-select", "report these too, besides the selected"),
        ("ignore", "never report these"),
    ):
        check.add_argument(
            f"--{name}",
            metavar="CODES",
            action="append",
            help=f"{what}: comma-separated codes, code prefixes or rule names (repeatable)",
        )
    check.add_argument(
        "--records",
        metavar="DIR",
        action="append",
        type=Path,
        help=f"extra record directory, after the built-in records and before {PROJECT_RECORDS} "
        "(repeatable; later wins by id)",
    )
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    check.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the cache of what each file held"
    )
    check.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=Path,
        help="where the cache lives (default: .errknow_cache at the project root); overrides `cache-dir`",
    )
    check.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="skip what .gitignore files ignore in the directories walked (default: true; "
        "overrides `respect-gitignore`)",
    )
    check.add_argument(
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="apply exclude and extend-exclude to paths named on the command line too, as pre-commit "
        "needs (default: false; overrides `force-exclude`)",
    )
    check.set_defaults(func=cmd_check)


def _add_rule_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rule = commands.add_parser(
        "rule",
        help="print a rule's documentation (what hover shows)",
        description="Print the documentation "
        "of the rule CODE (a code or a rule name), or of every rule with --all.",
    )
    rule.add_argument("code", nargs="?", metavar="CODE")
    rule.add_argument("--all", action="store_true", help="every rule")
    rule.add_argument(
        "--output-format",
        choices=["text", "json", "markdown"],
        default="text",
        help="markdown: the table of rules (with --all), as the README shows it",
    )
    rule.set_defaults(func=cmd_rule)


def _add_explain_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain = commands.add_parser(
        "explain",
        help="explain the Python tracebacks in logs, terminal captures and notebooks; exit 1 on matches",
        description="Read each FILE (`-` or none: standard input; *.ipynb: its saved error outputs). "
        "Exit 0: no traceback a record explains; 1: some; 2: a file could not be read.",
    )
    explain.add_argument("sources", nargs="*", metavar="FILE")
    explain.add_argument("--format", choices=["text", "json"], default="text")
    explain.add_argument("--locale", choices=["en", "zh"], default="en")
    _records_option(explain)
    explain.set_defaults(func=cmd_explain)


def _add_serve_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", help="run the language server")
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address")
    _records_option(serve, f"the editor's settings and {PROJECT_RECORDS}")
    serve.set_defaults(func=cmd_serve)


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errknow-ls", description=__doc__)
    parser.add_argument("--version", action="version", version=f"errknow-ls {__version__}")
    parser.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_check_command(commands)
    _add_rule_command(commands)
    _add_explain_command(commands)
    _add_records_commands(commands)
    _add_serve_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK
