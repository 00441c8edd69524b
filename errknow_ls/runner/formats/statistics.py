"""``--statistics``: how many findings of each rule, and whether ``--fix`` can fix them."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from errknow_ls.analysis import RULES
from errknow_ls.runner.report import Report

FIXABLE, SOME_FIXABLE, NOT_FIXABLE = "[*]", "[-]", "[ ]"


def rows(report: Report) -> list[tuple[str, str, int, int]]:
    """``(code, name, count, fixable)`` per rule found, in rule order."""
    counts: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    for _, finding in report.findings():
        counts[finding.code] += 1
        fixable[finding.code] += report.is_fixable(finding)
    return [
        (rule.code, rule.name, counts[rule.code], fixable[rule.code]) for rule in RULES if counts[rule.code]
    ]


def render(report: Report, _cwd: Path) -> str:
    table = rows(report)
    if not table:
        return ""
    width = max(len(str(count)) for _, _, count, _ in table)
    lines = []
    for code, name, count, fixable in table:
        marker = FIXABLE if fixable == count else SOME_FIXABLE if fixable else NOT_FIXABLE
        lines.append(f"{count:>{width}}\t{code}\t{marker} {name}\n")
    return "".join(lines)


def render_json(report: Report, _cwd: Path) -> str:
    items = [
        {"code": code, "name": name, "count": count, "fixable": fixable}
        for code, name, count, fixable in rows(report)
    ]
    return json.dumps(items, indent=2) + "\n"


def fixed_listing(report: Report) -> str:
    """``--show-fixes``: what ``--fix`` fixed, per file and rule, as ruff enumerates it."""
    names = {rule.code: rule.name for rule in RULES}
    blocks = []
    for result in report.results:
        if not result.fixed_codes:
            continue
        counts = Counter(result.fixed_codes)
        width = max(len(str(count)) for count in counts.values())
        items = [
            f"    {n:>{width}} \N{MULTIPLICATION SIGN} {code} ({names.get(code, '')})\n"
            for code, n in sorted(counts.items())
        ]
        blocks.append(f"  {result.path}:\n" + "".join(items))
    if not blocks:
        return "No errors fixed\n" if report.fix else ""
    total = report.fixed
    return f"\nFixed {total} error{'' if total == 1 else 's'}:\n" + "".join(blocks)
