"""JUnit XML: a test suite per file, a failed test case per finding (a passing case when none)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby
from pathlib import Path

from errknow_ls.runner.report import Located, Report

SUITES = "errknow-ls"


def render(report: Report, _cwd: Path) -> str:
    root = ET.Element("testsuites", name=SUITES, tests=str(report.remaining), failures=str(report.remaining))
    root.set("errors", "0")
    located = list(report.located())
    if not located:
        suite = ET.SubElement(root, "testsuite", name=SUITES, tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name="No errors found", classname=SUITES)
    for path, group in groupby(located, key=lambda item: item.path):
        cases = list(group)
        count = str(len(cases))
        suite = ET.SubElement(root, "testsuite", name=str(path), tests=count, failures=count, errors="0")
        for item in cases:
            _case(suite, item)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _case(suite: ET.Element, item: Located) -> None:
    finding = item.finding
    start = finding.span.start
    case = ET.SubElement(
        suite,
        "testcase",
        name=f"{finding.code} {finding.name}",
        classname=str(item.path),
        file=str(item.path),
        line=str(start.line + 1),
    )
    failure = ET.SubElement(case, "failure", message=finding.message, type=finding.code)
    where = "" if item.cell is None else f"cell {item.cell + 1}, "
    failure.text = f"{where}line {start.line + 1}, column {start.character + 1}: {finding.message}"
