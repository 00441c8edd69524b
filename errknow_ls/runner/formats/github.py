"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` annotation per finding.

The runner reads ``::command key=value,key=value::message``; in a value, ``%``, CR, LF, ``:`` and
``,`` are escaped as ``%25``, ``%0D``, ``%0A``, ``%3A`` and ``%2C`` (in the message, only the first
three).
"""

from __future__ import annotations

from pathlib import Path

from errknow_ls.core import Severity
from errknow_ls.runner.report import Report

COMMANDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
    Severity.HINT: "notice",
}


def render(report: Report, _cwd: Path) -> str:
    lines = []
    for located in report.located():
        finding = located.finding
        span = finding.span
        properties = {
            "title": f"errknow-ls ({finding.code})",
            "file": str(located.path),
            "line": str(span.start.line + 1),
            "col": str(span.start.character + 1),
            "endLine": str(span.end.line + 1),
            "endColumn": str(span.end.character + 1),
        }
        listed = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
        message = f"{located.where}: {finding.code} {finding.message}"
        lines.append(f"::{COMMANDS[finding.severity]} {listed}::{escape_data(message)}\n")
    return "".join(lines)


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
