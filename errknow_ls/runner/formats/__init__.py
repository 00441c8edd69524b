"""Output formats of ``check``: one module each, a ``render(report) -> str``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from errknow_ls.runner.formats import json_format, sarif, text
from errknow_ls.runner.options import OutputFormat
from errknow_ls.runner.report import Report

RENDERERS: dict[OutputFormat, Callable[[Report, Path], str]] = {
    OutputFormat.TEXT: text.render,
    OutputFormat.JSON: json_format.render,
    OutputFormat.SARIF: sarif.render,
}


def render(output_format: OutputFormat, report: Report, cwd: Path) -> str:
    return RENDERERS[output_format](report, cwd)
