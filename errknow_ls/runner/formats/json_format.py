"""A JSON list of findings, shaped like ruff's ``--output-format json`` (1-based, code points): the
finding's one JSON form (``core.codec``) with ruff's ``location`` / ``end_location``, its file, its
preferred fix as ``fix``; as ``json-lines``, one finding's object per line. ``cell`` is a notebook
finding's code cell (from 1), whose own lines its locations count; ``null`` elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from errknow_ls.core import Span
from errknow_ls.core.codec import encode_finding
from errknow_ls.runner.report import Located, Report, row_column


def render(report: Report, _cwd: Path) -> str:
    items = [finding_json(located) for located in report.located()]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def render_lines(report: Report, _cwd: Path) -> str:
    return "".join(
        json.dumps(finding_json(located), ensure_ascii=False) + "\n" for located in report.located()
    )


def locations(span: Span) -> dict[str, Any]:
    return {"location": row_column(span.start), "end_location": row_column(span.end)}


def finding_json(located: Located) -> dict[str, Any]:
    data = encode_finding(located.finding, locations)
    data["filename"] = str(located.path)
    data["cell"] = None if located.cell is None else located.cell + 1
    data["fix"] = data["fixes"][0] if data["fixes"] else None
    return data
