"""Each finding with the source lines around it, its related places and its fix as a diff, as
ruff's full output shows them; then the concise summary."""

from __future__ import annotations

import difflib
from pathlib import Path

from errknow_ls.core import Fix, OverlappingEdits, Related, Span, apply_edits
from errknow_ls.runner.formats.concise import headline, summary
from errknow_ls.runner.report import Located, Report

CONTEXT = 2
"""Source lines shown above and below a finding, and around a fix's change."""


def render(report: Report, cwd: Path) -> str:
    blocks = [block(report, located, cwd) for located in report.located()]
    return "".join(f"{text}\n" for text in [*blocks, *summary(report)])


def block(report: Report, located: Located, cwd: Path) -> str:
    finding = located.finding
    source = located.source()
    lines = [headline(report, located)]
    if source is not None:
        lines += snippet(source.splitlines(), finding.span, finding.code)
    lines += [f"  = note: {_where(r, cwd)}: {r.message}" for r in finding.related]
    fix = finding.preferred_fix
    if fix is not None:
        lines.append(f"  = help: {fix.title} ({fix.applicability} fix)")
        if source is not None:
            lines += fix_diff(source, fix)
    return "\n".join(lines) + "\n"


def snippet(lines: list[str], span: Span, label: str) -> list[str]:
    """The lines around ``span`` with a caret line under its first line (its first line's width
    when it spans several)."""
    first, last = span.start.line, span.end.line
    top, bottom = max(first - CONTEXT, 0), min(last + CONTEXT, len(lines) - 1)
    width = len(str(bottom + 1))
    gutter = " " * width
    out = [f"{gutter} |"]
    for number in range(top, bottom + 1):
        text = lines[number] if number < len(lines) else ""
        out.append(f"{number + 1:>{width}} | {text}".rstrip())
        if number == first:
            end = span.end.character if last == first else len(text)
            carets = "^" * max(end - span.start.character, 1)
            out.append(f"{gutter} | {' ' * span.start.character}{carets} {label}")
    out.append(f"{gutter} |")
    return out


def fix_diff(source: str, fix: Fix) -> list[str]:
    """The fix's change as unified-diff hunks (no file header), indented under the finding."""
    try:
        fixed = apply_edits(source, list(fix.edits))
    except OverlappingEdits:
        return []
    diff = difflib.unified_diff(source.splitlines(), fixed.splitlines(), lineterm="", n=CONTEXT)
    return [f"    {line}".rstrip() for line in list(diff)[2:]]


def _where(related: Related, cwd: Path) -> str:
    """A related place: its line and column, after its file's path where it lies in another file
    (relative to the working directory when below it)."""
    if related.path is None:
        return _at(related.span)
    path = Path(related.path)
    shown = path.relative_to(cwd) if path.is_relative_to(cwd) else path
    return f"{shown}:{_at(related.span)}"


def _at(span: Span) -> str:
    return f"{span.start.line + 1}:{span.start.character + 1}"
