"""A GitLab code-quality report: a JSON list of Code Climate issues, as GitLab's merge request widget
reads them (``description``, ``check_name``, ``fingerprint``, ``severity``, ``location``).

A fingerprint stays the same while the finding does, wherever it moves in its file: it hashes the
path, the code, the text of the lines it spans (not their numbers, which messages also hold) and
how many such findings came before it in that file.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from errknow_ls.core import Severity
from errknow_ls.runner.report import Located, Report

SEVERITIES = {
    Severity.ERROR: "major",
    Severity.WARNING: "minor",
    Severity.INFO: "info",
    Severity.HINT: "info",
}


def render(report: Report, cwd: Path) -> str:
    issues: list[dict[str, Any]] = []
    seen: Counter[tuple[str, str, str]] = Counter()
    for located in report.located():
        finding = located.finding
        path = relative(located.path, cwd)
        key = (path, finding.code, _spanned_text(located))
        fingerprint = hashlib.blake2b(
            json.dumps([*key, located.cell, seen[key]]).encode(), digest_size=16
        ).hexdigest()
        seen[key] += 1
        cell = "" if located.cell is None else f" (cell {located.cell + 1})"
        issues.append(
            {
                "type": "issue",
                "check_name": f"{finding.code} {finding.name}",
                "description": f"{finding.code}: {finding.message}{cell}",
                "categories": ["Bug Risk"],
                "severity": SEVERITIES[finding.severity],
                "fingerprint": fingerprint,
                "location": {
                    "path": path,
                    "lines": {"begin": finding.span.start.line + 1, "end": finding.span.end.line + 1},
                },
            }
        )
    return json.dumps(issues, ensure_ascii=False, indent=2) + "\n"


def _spanned_text(located: Located) -> str:
    source = located.source()
    if source is None:
        return located.finding.message
    lines = source.splitlines()[located.finding.span.start.line : located.finding.span.end.line + 1]
    return "\n".join(line.strip() for line in lines)


def relative(path: Path, cwd: Path) -> str:
    """The path from the project directory (where CI runs), as GitLab links it; absolute outside."""
    absolute = path if path.is_absolute() else cwd / path
    try:
        return absolute.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return absolute.resolve().as_posix()
