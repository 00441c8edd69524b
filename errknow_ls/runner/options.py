"""What one ``check`` run was asked to do, and the rule codes its selectors name."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from errknow_ls.analysis.registry import resolve


class OutputFormat(enum.StrEnum):
    """ruff's names, and what each is for."""

    CONCISE = "concise"
    """``path:row:col: CODE message``, one line each, and a summary."""
    FULL = "full"
    """Each finding with its source lines, its related places and its fix as a diff."""
    JSON = "json"
    JSON_LINES = "json-lines"
    GITHUB = "github"
    """GitHub Actions workflow commands: an annotation per finding."""
    GITLAB = "gitlab"
    """A GitLab code-quality report."""
    JUNIT = "junit"
    SARIF = "sarif"


FORMAT_ALIASES = {"text": OutputFormat.CONCISE}
"""Earlier names, still accepted."""


def output_format(name: str) -> OutputFormat:
    """The format ``name`` (or an earlier name of it) names; raises ``ValueError``."""
    return FORMAT_ALIASES.get(name) or OutputFormat(name)


class ExitCode(enum.IntEnum):
    OK = 0
    FOUND = 1
    """Findings remain (after fixes)."""
    ERROR = 2
    """A bad option, or a path that could not be read, decoded or written."""


class OptionError(ValueError):
    """A bad command-line option: the run stops with exit code 2."""


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """The command line as given; ``None`` means "not given" (the project settings or a default apply)."""

    paths: Sequence[Path] = (Path(),)
    output_format: OutputFormat | None = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    """Print what ``--fix`` would change as a unified diff; change nothing."""
    show_fixes: bool = False
    statistics: bool = False
    exit_non_zero_on_fix: bool = False
    stdin: bytes | None = None
    """The one file to check, read from standard input, named ``stdin_filename``."""
    stdin_filename: Path | None = None
    fix_symlink_targets: bool = False
    """``--fix`` writes a symlinked file's target even outside the checked paths."""
    select: Sequence[str] | None = None
    extend_select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    records: Sequence[Path] | None = None
    exit_zero: bool = False
    no_cache: bool = False
    cache_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class RuleSelection:
    """Codes to report (``None``: every rule) and codes never to report."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] = field(default_factory=frozenset)

    def allows(self, code: str) -> bool:
        return (self.select is None or code in self.select) and code not in self.ignore


def split_selectors(values: Iterable[str]) -> list[str]:
    """``["EK001,EK002", "double-backward"]`` -> ``["EK001", "EK002", "double-backward"]``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def resolve_selectors(selectors: Iterable[str]) -> tuple[frozenset[str], list[str]]:
    """The codes the selectors name, and the selectors that name no rule."""
    codes: set[str] = set()
    unknown: list[str] = []
    for selector in selectors:
        rules = resolve(selector)
        if not rules:
            unknown.append(selector)
        codes.update(rule.code for rule in rules)
    return frozenset(codes), unknown
