"""Output formats of ``check``: one module each, a ``render(report, cwd) -> str``, imported when
its format is chosen (a run prints one: the others' imports, XML for JUnit among them, would cost
every run)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from errknow_ls.runner.options import OutputFormat
from errknow_ls.runner.report import Report

RENDERERS: dict[OutputFormat, tuple[str, str]] = {
    OutputFormat.CONCISE: ("concise", "render"),
    OutputFormat.FULL: ("full", "render"),
    OutputFormat.JSON: ("json_format", "render"),
    OutputFormat.JSON_LINES: ("json_format", "render_lines"),
    OutputFormat.GITHUB: ("github", "render"),
    OutputFormat.GITLAB: ("gitlab", "render"),
    OutputFormat.JUNIT: ("junit", "render"),
    OutputFormat.SARIF: ("sarif", "render"),
}
"""Each format's module in this package and its function."""


def renderer(output_format: OutputFormat) -> Callable[[Report, Path], str]:
    module, function = RENDERERS[output_format]
    chosen: Callable[[Report, Path], str] = getattr(importlib.import_module(f"{__name__}.{module}"), function)
    return chosen


def render(output_format: OutputFormat, report: Report, cwd: Path) -> str:
    return renderer(output_format)(report, cwd)
