"""A JSON list of findings, shaped like ruff's ``--output-format json`` (1-based, code points)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from errknow_ls.core import Finding, Fix, Related
from errknow_ls.runner.report import Report, row_column


def render(report: Report, _cwd: Path) -> str:
    items = [finding_json(path, finding) for path, finding in report.findings()]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def finding_json(path: Path, finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "name": finding.name,
        "record": finding.record_id,
        "severity": str(finding.severity),
        "message": finding.message,
        "filename": str(path),
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
