"""A workspace folder as a project: its root and the ``[tool.errknow]`` that applies there."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from errknow_ls.project.config import ProjectSettings, load_settings
from errknow_ls.project.discovery import Excluder
from errknow_ls.project.rules import (
    PerFileIgnores,
    RuleSelection,
    Selectors,
    SeverityName,
    UnknownSelectors,
    select_rules,
)


@dataclass(frozen=True, slots=True)
class Project:
    """One workspace folder: its ``[tool.errknow]`` and the rules that follow for its files."""

    root: Path
    settings: ProjectSettings

    @classmethod
    def load(cls, root: Path) -> Project:
        return cls(root, load_settings(root))

    def rules(
        self, given: Selectors, severity: Mapping[str, SeverityName] | None = None
    ) -> tuple[RuleSelection, list[UnknownSelectors]]:
        """The rules for this folder's files: ``given`` (the editor's) over the project's."""
        return select_rules(given, self.settings.selectors(), severity)

    def per_file_ignores(self) -> tuple[PerFileIgnores, list[str]]:
        """``per-file-ignores`` (globs relative to the project root, as ``check`` reads them), and a
        warning for each glob whose selectors name no rule."""
        per_file, unknown = PerFileIgnores.resolve(
            self.settings.root or self.root, self.settings.per_file_ignores
        )
        return per_file, [PerFileIgnores.describe_unknown(glob, names) for glob, names in unknown]

    def excluder(self) -> Excluder:
        """What ``check`` excludes, matched as ``check`` matches it."""
        return self.settings.excluder(self.root)
