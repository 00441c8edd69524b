"""The project around a path, and its settings from ``[tool.errknow]``: forgiving, as ruff's are.

The project root is the nearest directory at or above the start that holds ``.errknow/`` or a
``pyproject.toml`` with a ``[tool.errknow]`` table (as ruff stops at the nearest configuration);
its ``[tool.errknow]`` and its ``.errknow/records/`` apply.

Unknown keys are ignored with one warning; a value of the wrong type warns and falls back to the
default. ``exclude`` replaces the default excludes, ``extend-exclude`` adds to them (as in ruff).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errknow_ls.project.discovery import DEFAULT_EXCLUDE, Excluder
from errknow_ls.project.rules import Selectors, split_selectors

PYPROJECT = "pyproject.toml"
PROJECT_DIR = ".errknow"
WORKSPACE_RECORDS = Path(PROJECT_DIR) / "records"
KNOWN_KEYS = (
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "respect-gitignore",
    "force-exclude",
    "output-format",
    "records",
    "cache-dir",
)


@dataclass(frozen=True, slots=True)
class ProjectSettings:
    root: Path | None = None
    """The project root (``find_project``), where the settings came from; globs are relative to it."""
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    """Added to ``select`` (to every rule's when ``select`` is not set, which reports all anyway)."""
    ignore: list[str] | None = None
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    """Glob (relative to ``root``, or a file name) -> selectors never reported in files it matches."""
    output_format: str | None = None
    """As ``--output-format`` spells it (checked by the run, which knows the formats)."""
    exclude: list[str] | None = None
    extend_exclude: list[str] = field(default_factory=list)
    respect_gitignore: bool | None = None
    """Skip what ``.gitignore`` files ignore in directories walked; ``None``: not set (true)."""
    force_exclude: bool | None = None
    """Apply the excludes to files named on the command line too; ``None``: not set (false)."""
    records: list[Path] | None = None
    cache_dir: Path | None = None
    """Relative to ``root``; ``None``: ``.errknow_cache`` there."""
    warnings: list[str] = field(default_factory=list)

    def record_dirs(self) -> list[Path]:
        """The project's record directories, a later one winning by id: ``records`` in
        ``[tool.errknow]``, then ``.errknow/records/`` at the project root."""
        dirs = list(self.records or [])
        if self.root is not None and (self.root / WORKSPACE_RECORDS).is_dir():
            dirs.append(self.root / WORKSPACE_RECORDS)
        return dirs

    def selectors(self) -> Selectors:
        return Selectors(self.select, self.ignore, self.extend_select or None)

    def excluder(self, root: Path | None = None) -> Excluder:
        """The excludes: the defaults (or ``exclude``) and ``extend-exclude``, relative to the
        project root (else ``root``, else matched by name only)."""
        base = DEFAULT_EXCLUDE if self.exclude is None else self.exclude
        return Excluder((*base, *self.extend_exclude), self.root or root)


def find_project(start: Path) -> Path | None:
    """The project root: the nearest directory at or above ``start`` holding ``.errknow/`` or a
    ``pyproject.toml`` with a ``[tool.errknow]`` table.

    A ``pyproject.toml`` that does not parse also ends the search: it is the project's, and its
    error is worth a warning.
    """
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        if (directory / PROJECT_DIR).is_dir() or _configures_errknow(directory / PYPROJECT):
            return directory
    return None


def _configures_errknow(candidate: Path) -> bool:
    if not candidate.is_file():
        return False
    import tomllib  # noqa: PLC0415 (on use: most folders a check starts in hold no pyproject.toml)

    try:
        data = tomllib.loads(candidate.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    return "errknow" in data.get("tool", {})


def load_settings(start: Path) -> ProjectSettings:
    """The settings of the project around ``start`` (``find_project``); defaults outside one."""
    root = find_project(start)
    if root is None:
        return ProjectSettings()
    path = root / PYPROJECT
    if not _configures_errknow(path):
        return ProjectSettings(root=root)
    import tomllib  # noqa: PLC0415 (see _configures_errknow)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return ProjectSettings(root=root, warnings=[f"warning: {path}: cannot read, using defaults: {exc}"])
    table = data.get("tool", {}).get("errknow")
    if not isinstance(table, dict):
        return ProjectSettings(
            root=root, warnings=[f"warning: {path}: [tool.errknow] is not a table; using defaults"]
        )
    return _settings(path, table)


def _settings(path: Path, table: dict[str, Any]) -> ProjectSettings:
    warnings: list[str] = []
    unknown = sorted(key for key in table if key not in KNOWN_KEYS)
    if unknown:
        warnings.append(f"warning: {path}: [tool.errknow] unknown keys ignored: {', '.join(unknown)}")

    def get(key: str, convert: Callable[[object], list[str] | None]) -> list[str] | None:
        if key not in table:
            return None
        value = convert(table[key])
        if value is None:
            expected = "expected a list of strings; using the default"
            warnings.append(f"warning: {path}: [tool.errknow] {key}: {expected}")
        return value

    def boolean(key: str) -> bool | None:
        value = table.get(key)
        if value is not None and not isinstance(value, bool):
            warnings.append(
                f"warning: {path}: [tool.errknow] {key}: expected true or false; using the default"
            )
            return None
        return value

    def string(key: str) -> str | None:
        value = table.get(key)
        if value is not None and not isinstance(value, str):
            warnings.append(f"warning: {path}: [tool.errknow] {key}: expected a string; using the default")
            return None
        return value

    records = get("records", _strings)
    cache_dir = string("cache-dir")
    per_file = table.get("per-file-ignores", {})
    per_file_ignores = _per_file(per_file)
    if per_file_ignores is None:
        expected = "expected a table of glob = list of codes; ignored"
        warnings.append(f"warning: {path}: [tool.errknow] per-file-ignores: {expected}")
    return ProjectSettings(
        root=path.parent,
        select=get("select", _selectors),
        extend_select=get("extend-select", _selectors) or [],
        ignore=get("ignore", _selectors),
        per_file_ignores=per_file_ignores or {},
        output_format=string("output-format"),
        exclude=get("exclude", _strings),
        extend_exclude=get("extend-exclude", _strings) or [],
        respect_gitignore=boolean("respect-gitignore"),
        force_exclude=boolean("force-exclude"),
        records=None if records is None else [path.parent / r for r in records],
        cache_dir=None if cache_dir is None else path.parent / cache_dir,
        warnings=warnings,
    )


def _strings(value: object) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    return None


def _per_file(value: object) -> dict[str, list[str]] | None:
    if not isinstance(value, dict):
        return None
    table: dict[str, list[str]] = {}
    for glob, codes in value.items():
        selectors = _selectors(codes)
        if selectors is None:
            return None
        table[str(glob)] = selectors
    return table


def _selectors(value: object) -> list[str] | None:
    """A list of codes, or one comma-separated string of them."""
    strings = _strings(value)
    return None if strings is None else split_selectors(strings)
