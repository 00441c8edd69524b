"""Output formats of ``check``: one module each, a ``render(report, cwd) -> str``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from errknow_ls.runner.formats import concise, full, github, gitlab, json_format, junit, sarif
from errknow_ls.runner.options import OutputFormat
from errknow_ls.runner.report import Report

RENDERERS: dict[OutputFormat, Callable[[Report, Path], str]] = {
    OutputFormat.CONCISE: concise.render,
    OutputFormat.FULL: full.render,
    OutputFormat.JSON: json_format.render,
    OutputFormat.JSON_LINES: json_format.render_lines,
    OutputFormat.GITHUB: github.render,
    OutputFormat.GITLAB: gitlab.render,
    OutputFormat.JUNIT: junit.render,
    OutputFormat.SARIF: sarif.render,
}


def render(output_format: OutputFormat, report: Report, cwd: Path) -> str:
    return RENDERERS[output_format](report, cwd)
