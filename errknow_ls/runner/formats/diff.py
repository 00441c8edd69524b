"""``--diff``: what ``--fix`` would write, as a unified diff that ``patch -p1`` applies."""

from __future__ import annotations

import difflib
from pathlib import Path

from errknow_ls.runner.report import Report

NO_NEWLINE = "\\ No newline at end of file\n"


def render(report: Report) -> str:
    return "".join(
        unified_diff(result.path, result.original, result.fixed_text)
        for result in report.results
        if result.original is not None and result.fixed_text is not None
    )


def unified_diff(path: Path, before: str, after: str) -> str:
    """``a/path`` -> ``b/path``; a last line without a newline is marked as diff and patch mark it."""
    name = path.as_posix()
    lines = difflib.unified_diff(_lines(before), _lines(after), fromfile=f"a/{name}", tofile=f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in lines)


def _lines(text: str) -> list[str]:
    """Lines with their endings, as ``patch`` reads them: only ``\\n`` ends one (a CR stays in its line)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines
