"""SARIF 2.1.0: one run, a rule descriptor per rule, columns in code points, the preferred fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from errknow_ls import __version__
from errknow_ls.analysis import RULES, RuleInfo
from errknow_ls.core import Fix, Severity, Span
from errknow_ls.runner.report import Located, Notice, Report

if TYPE_CHECKING:
    from errknow_ls.kb import KnowledgeBase

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/errknow-ls/"
SRCROOT = "%SRCROOT%"
LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
    Severity.HINT: "note",
}


def render(report: Report, cwd: Path) -> str:
    return json.dumps(sarif_log(report, cwd), ensure_ascii=False, indent=2) + "\n"


def sarif_log(report: Report, cwd: Path) -> dict[str, Any]:
    index = {rule.code: i for i, rule in enumerate(RULES)}
    kb = report.kb()
    run = {
        "tool": {
            "driver": {
                "name": "errknow-ls",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule_descriptor(rule, kb) for rule in RULES],
            }
        },
        "invocations": [invocation(report, cwd)],
        "originalUriBaseIds": {SRCROOT: {"uri": cwd.resolve().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [result(located, index, cwd) for located in report.located()],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def rule_descriptor(rule: RuleInfo, kb: KnowledgeBase) -> dict[str, Any]:
    from errknow_ls.analysis.rules import documentation  # noqa: PLC0415 (the rules' modules: only for SARIF)

    docs = documentation(rule.code)
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": section(docs, "What it does") or rule.summary},
        "help": {"text": docs or rule.summary, "markdown": docs or rule.summary},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"record": rule.record_id},
    }
    record = kb.get(rule.record_id)
    if record is not None and record.official_doc_url:
        descriptor["helpUri"] = record.official_doc_url
    return descriptor


def section(docs: str, heading: str) -> str:
    """The text under ``### heading`` in a rule's documentation, joined into one paragraph."""
    lines = docs.splitlines()
    try:
        start = lines.index(f"### {heading}") + 1
    except ValueError:
        return ""
    body = []
    for line in lines[start:]:
        if line.startswith("#"):
            break
        body.append(line.strip())
    return " ".join(part for part in body if part)


def invocation(report: Report, cwd: Path) -> dict[str, Any]:
    notifications = [notification(notice, cwd) for notice in report.notices]
    data: dict[str, Any] = {"executionSuccessful": not report.failed}
    if notifications:
        data["toolExecutionNotifications"] = notifications
    return data


def notification(notice: Notice, cwd: Path) -> dict[str, Any]:
    return {
        "level": "error" if notice.is_error else "warning",
        "message": {"text": f"{notice.kind}: {notice.message}"},
        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(notice.path, cwd)}}],
    }


def result(located: Located, index: dict[str, int], cwd: Path) -> dict[str, Any]:
    """A notebook's finding has its code cell (from 1) in ``properties.cell``: its region counts
    that cell's lines."""
    finding = located.finding
    where = artifact_location(located.path, cwd)
    data: dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": where, "region": region(finding.span)}}],
        "properties": {"name": finding.name, "record": finding.record_id},
    }
    if located.cell is not None:
        data["properties"]["cell"] = located.cell + 1
    if finding.code in index:
        data["ruleIndex"] = index[finding.code]
    if finding.related:
        data["relatedLocations"] = [
            {
                "id": i,
                "message": {"text": related.message},
                "physicalLocation": {
                    "artifactLocation": where
                    if related.path is None
                    else artifact_location(Path(related.path), cwd),
                    "region": region(related.span),
                },
            }
            for i, related in enumerate(finding.related)
        ]
    if finding.preferred_fix is not None:
        data["fixes"] = [sarif_fix(finding.preferred_fix, where)]
    return data


def sarif_fix(fix: Fix, where: dict[str, Any]) -> dict[str, Any]:
    return {
        "description": {"text": fix.title},
        "artifactChanges": [
            {
                "artifactLocation": where,
                "replacements": [
                    {"deletedRegion": region(edit.span), "insertedContent": {"text": edit.content}}
                    for edit in fix.edits
                ],
            }
        ],
        "properties": {"applicability": str(fix.applicability)},
    }


def region(span: Span) -> dict[str, int]:
    """1-based lines and code-point columns; ``endColumn`` is one past the last character."""
    return {
        "startLine": span.start.line + 1,
        "startColumn": span.start.character + 1,
        "endLine": span.end.line + 1,
        "endColumn": span.end.character + 1,
    }


def artifact_location(path: Path, cwd: Path) -> dict[str, Any]:
    """A URI relative to the working directory (``%SRCROOT%``) when the file is below it."""
    absolute = path if path.is_absolute() else cwd / path
    try:
        relative = absolute.resolve().relative_to(cwd.resolve())
    except ValueError:
        return {"uri": absolute.resolve().as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": SRCROOT}
