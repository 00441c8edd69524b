"""The user's project: where it is, its ``[tool.errknow]``, its files, its import roots, the rules
that run on it. The CLI's runner and the language server read a project only through here; its
modules, as the checker reads them, through ``errknow_ls.project.modules`` (imported on first use)."""

from __future__ import annotations

from errknow_ls.project.config import ProjectSettings, find_project, load_settings
from errknow_ls.project.discovery import DEFAULT_EXCLUDE, Discovered, Excluder, discover, within
from errknow_ls.project.gitignore import GITIGNORE, Gitignores
from errknow_ls.project.roots import import_roots, module_file
from errknow_ls.project.rules import (
    PerFileIgnores,
    RuleSelection,
    Selectors,
    SeverityName,
    UnknownSelectors,
    resolve_selectors,
    select_rules,
    split_selectors,
)
from errknow_ls.project.workspace import Project

__all__ = [
    "DEFAULT_EXCLUDE",
    "GITIGNORE",
    "Discovered",
    "Excluder",
    "Gitignores",
    "PerFileIgnores",
    "Project",
    "ProjectSettings",
    "RuleSelection",
    "Selectors",
    "SeverityName",
    "UnknownSelectors",
    "discover",
    "find_project",
    "import_roots",
    "load_settings",
    "module_file",
    "resolve_selectors",
    "select_rules",
    "split_selectors",
    "within",
]
