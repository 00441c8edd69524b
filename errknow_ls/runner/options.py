"""What one ``check`` run was asked to do."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


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
    fix_hard_links: bool = False
    """``--fix`` rewrites a file with other names (hard links) in place, through a journal."""
    select: Sequence[str] | None = None
    extend_select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    records: Sequence[Path] | None = None
    exit_zero: bool = False
    no_cache: bool = False
    cache_dir: Path | None = None
    respect_gitignore: bool | None = None
    """``--respect-gitignore`` / ``--no-respect-gitignore``; ``None``: the setting, else true."""
    force_exclude: bool | None = None
    """``--force-exclude`` / ``--no-force-exclude``; ``None``: the setting, else false."""
