"""Applying settings: the editor's over each workspace folder's ``[tool.errknow]``, and the records."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from errknow_ls import __version__
from errknow_ls.kb import KnowledgeBase
from errknow_ls.lsp import publishing, scan
from errknow_ls.lsp.checking import Analyzer
from errknow_ls.lsp.settings import SECTION, Project, Rules, Settings, merge, parse_settings, unknown_rules
from errknow_ls.runner.config import ProjectSettings

if TYPE_CHECKING:
    from errknow_ls.lsp.server import ErrknowServer

log = logging.getLogger(__name__)
CONFIGURATION_TIMEOUT = 5.0


def apply(ls: ErrknowServer) -> None:
    """Re-read everything settings decide; stored results are stale afterwards."""
    settings, problem = parse_settings(merge(ls.init_options, ls.client_settings))
    if problem:
        ls.tell_once(problem)
    unknown = unknown_rules(settings)
    if unknown:
        ls.tell_once(f"errknow settings: no rule matches {', '.join(map(repr, unknown))}; ignored")
    ls.settings = settings
    logging.getLogger("errknow_ls").setLevel(settings.log_level.upper())
    ls.projects = [Project.load(root) for root in ls.roots()]
    for project in ls.projects:
        for warning in project.settings.warnings:
            ls.tell_once(warning.removeprefix("warning: "))
    _reload_kb(ls)
    ls.checks.reconfigure(
        Analyzer(
            generation=ls.checks.analyzer.generation + 1,
            encoding=ls.workspace.position_encoding or types.PositionEncodingKind.Utf16,
            rules=_rules_by_path(ls.projects, settings),
            doc_urls={r.id: r.official_doc_url for r in ls.kb.records if r.official_doc_url},
            cache=ls.checks.analyzer.cache,
        )
    )


def _rules_by_path(projects: list[Project], settings: Settings) -> Callable[[str], Rules]:
    """The rules of the innermost workspace folder holding a file; the editor's alone elsewhere."""
    by_root = sorted(((p.root, p.rules(settings)) for p in projects), key=lambda pair: -len(pair[0].parts))
    default = Project(Path(), ProjectSettings()).rules(settings)

    def rules(uri: str) -> Rules:
        path = to_fs_path(uri)
        if path:
            for root, found in by_root:
                if Path(path).is_relative_to(root):
                    return found
        return default

    return rules


def record_dirs(ls: ErrknowServer) -> list[Path]:
    """Record directories after the built-in ones, a later one winning by id (as the README
    says): the command line's ``--records``, the editor's ``records``, then each workspace
    folder's project: ``records`` in its ``[tool.errknow]`` and its ``.errknow/records``."""
    roots = ls.roots()
    base = roots[0] if roots else Path()
    dirs = [*ls.cli_records, *(base / Path(d).expanduser() for d in ls.settings.records)]
    dirs += [d for project in ls.projects for d in project.settings.record_dirs()]
    return list(dict.fromkeys(dirs))


def _reload_kb(ls: ErrknowServer) -> None:
    ls.kb = KnowledgeBase.load(record_dirs(ls))
    for problem in ls.kb.problems:
        ls.log_once(f"record skipped: {problem}", types.MessageType.Warning)


def summary(ls: ErrknowServer) -> str:
    count = len(ls.kb)
    return (
        f"errknow-ls {__version__}: {count} record{'' if count == 1 else 's'} from {', '.join(ls.kb.sources)}"
    )


async def pull(ls: ErrknowServer) -> bool:
    """Ask the client for the ``errknow`` section; True when it answered with something."""
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return False
    params = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
    try:
        async with asyncio.timeout(CONFIGURATION_TIMEOUT):
            values = await ls.workspace_configuration_async(params)
    except Exception as exc:  # a client that fails this keeps what it had
        log.warning("workspace/configuration failed: %s", exc)
        return False
    if not values or values[0] is None:
        return False
    ls.client_settings = values[0]
    return True


def reconfigure(ls: ErrknowServer) -> None:
    """Apply, then check everything again: open documents, the workspace, and what clients pull."""
    apply(ls)
    for document in list(ls.workspace.text_documents.values()):
        ls.spawn(publishing.refresh(ls, document.uri))
    # Not at once: a client pulling now would still get the files the new settings exclude.
    scan.restart(ls, refresh=True)
