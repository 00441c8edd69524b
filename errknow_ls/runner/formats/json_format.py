"""A JSON list of findings, shaped like ruff's ``--output-format json`` (1-based, code points); as
``json-lines``, one finding's object per line. ``cell`` is a notebook finding's code cell (from 1),
whose own lines its locations count; ``null`` elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from errknow_ls.core import Fix, Related
from errknow_ls.runner.report import Located, Report, row_column


def render(report: Report, _cwd: Path) -> str:
    items = [finding_json(located) for located in report.located()]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def render_lines(report: Report, _cwd: Path) -> str:
    return "".join(
        json.dumps(finding_json(located), ensure_ascii=False) + "\n" for located in report.located()
    )


def finding_json(located: Located) -> dict[str, Any]:
    finding = located.finding
    return {
        "code": finding.code,
        "name": finding.name,
        "record": finding.record_id,
        "severity": str(finding.severity),
        "message": finding.message,
        "filename": str(located.path),
        "cell": None if located.cell is None else located.cell + 1,
        "location": row_column(finding.span.start),
        "end_location": row_column(finding.span.end),
        "fix": fix_json(finding.preferred_fix),
        "fixes": [fix_json(fix) for fix in finding.fixes],
        "related": [related_json(related) for related in finding.related],
    }


def fix_json(fix: Fix | None) -> dict[str, Any] | None:
    if fix is None:
        return None
    return {
        "title": fix.title,
        "applicability": str(fix.applicability),
        "edits": [
            {
                "content": edit.content,
                "location": row_column(edit.span.start),
                "end_location": row_column(edit.span.end),
            }
            for edit in fix.edits
        ],
    }


def related_json(related: Related) -> dict[str, Any]:
    return {
        "message": related.message,
        "location": row_column(related.span.start),
        "end_location": row_column(related.span.end),
    }
