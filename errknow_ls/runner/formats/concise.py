"""``path:row:col: CODE [*] message`` per finding and a summary, as ruff's concise output (a
notebook's findings: ``path:cell N:row:col``)."""

from __future__ import annotations

from pathlib import Path

from errknow_ls.runner.report import Located, Report

FIX_MARKER = "[*] "


def render(report: Report, _cwd: Path) -> str:
    lines = [headline(report, located) for located in report.located()]
    return "".join(f"{line}\n" for line in [*lines, *summary(report)])


def headline(report: Report, located: Located) -> str:
    finding = located.finding
    marker = FIX_MARKER if report.is_fixable(finding) else ""
    return f"{located.where}: {finding.code} {marker}{finding.message}"


def summary(report: Report) -> list[str]:
    remaining, fixed = report.remaining, report.fixed
    total = remaining + fixed
    if total == 0:
        return ["All checks passed!"]
    errors = f"{total} error{'' if total == 1 else 's'}"
    lines = [f"Found {errors} ({fixed} fixed, {remaining} remaining)." if fixed else f"Found {errors}."]
    fixable = 0 if report.fix else report.fixable
    hidden = report.hidden_fixes
    hint = (
        f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with the --unsafe-fixes option"
        if hidden
        else ""
    )
    if fixable:
        lines.append(f"[*] {fixable} fixable with the --fix option" + (f" ({hint})." if hint else "."))
    elif hint:
        lines.append(f"No fixes available ({hint}).")
    return lines
