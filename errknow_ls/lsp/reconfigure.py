"""Applying settings: the editor's over each workspace folder's ``[tool.errknow]``, and the records."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types
from pygls.uris import to_fs_path

from errknow_ls import __version__
from errknow_ls.core.translation import language
from errknow_ls.lsp import publishing, scan
from errknow_ls.lsp.checking import Analyzer
from errknow_ls.lsp.client_settings import (
    SECTION,
    Settings,
    editor_selectors,
    merge,
    parse_settings,
    unknown_rules,
)
from errknow_ls.project import PerFileIgnores, Project, ProjectSettings, RuleSelection, import_roots
from errknow_ls.project.results_cache import cache_directory

if TYPE_CHECKING:
    from errknow_ls.lsp.session import Session

log = logging.getLogger(__name__)
T = TypeVar("T")
CONFIGURATION_TIMEOUT = 5.0


def apply(session: Session) -> None:
    """Re-read everything settings decide; stored results are stale afterwards."""
    settings, problem = parse_settings(merge(session.init_options, session.client_settings))
    if problem:
        session.tell_once(problem)
    unknown = unknown_rules(settings)
    if unknown:
        session.tell_once(f"errknow settings: no rule matches {', '.join(map(repr, unknown))}; ignored")
    session.settings = settings
    logging.getLogger("errknow_ls").setLevel(settings.log_level.upper())
    session.projects = [Project.load(root) for root in session.roots()]
    for project in session.projects:
        for warning in [*project.settings.warnings, *project.per_file_ignores()[1]]:
            session.tell_once(warning.removeprefix("warning: "))
    _reload_kb(session)
    directories: Callable[[str], Path | None] = _by_folder(
        [(p.root, cache_directory(p.settings, folder=p.root)) for p in session.projects], None
    )
    session.known.directories = directories
    session.checks.reconfigure(
        Analyzer(
            generation=session.checks.analyzer.generation + 1,
            encoding=session.workspace.position_encoding or types.PositionEncodingKind.Utf16,
            rules=_rules_by_path(session.projects, settings),
            roots=_roots_by_path(session.projects),
            doc_urls={r.id: r.official_doc_url for r in session.kb.records if r.official_doc_url},
            language=language(session.locale),
            cache=session.checks.analyzer.cache,
            summaries=directories,
        )
    )


def _rules_by_path(projects: list[Project], settings: Settings) -> Callable[[str], RuleSelection]:
    """The rules of the innermost workspace folder holding a file, less what its project's
    ``per-file-ignores`` ignore there (as ``check`` does); the editor's alone elsewhere."""
    given = editor_selectors(settings)
    default = Project(Path(), ProjectSettings()).rules(given, settings.severity)[0]
    folders: list[tuple[Path, tuple[RuleSelection, PerFileIgnores] | None]] = [
        (p.root, (p.rules(given, settings.severity)[0], p.per_file_ignores()[0])) for p in projects
    ]
    folder_of = _by_folder(folders, None)

    def rules(uri: str) -> RuleSelection:
        found = folder_of(uri)
        if found is None:
            return default
        selection, per_file = found
        path = to_fs_path(uri)
        return per_file.rules_for(Path(path), selection) if path else selection

    return rules


def _roots_by_path(projects: list[Project]) -> Callable[[str], tuple[Path, ...]]:
    """The import roots of the innermost workspace folder holding a file; none elsewhere."""
    return _by_folder([(p.root, tuple(import_roots(p.root))) for p in projects], ())


def _by_folder(values: list[tuple[Path, T]], default: T) -> Callable[[str], T]:
    """A URI's value: that of the innermost folder holding its file, else ``default``."""
    by_root = sorted(values, key=lambda pair: -len(pair[0].parts))

    def of(uri: str) -> T:
        path = to_fs_path(uri)
        if path:
            for root, found in by_root:
                if Path(path).is_relative_to(root):
                    return found
        return default

    return of


def record_dirs(session: Session) -> list[Path]:
    """Record directories after the built-in ones, a later one winning by id (as the README
    says): the command line's ``--records``, the editor's ``records``, then each workspace
    folder's project: ``records`` in its ``[tool.errknow]`` and its ``.errknow/records``."""
    roots = session.roots()
    base = roots[0] if roots else Path()
    dirs = [*session.cli_records, *(base / Path(d).expanduser() for d in session.settings.records)]
    dirs += [d for project in session.projects for d in project.settings.record_dirs()]
    return list(dict.fromkeys(dirs))


def _reload_kb(session: Session) -> None:
    session.kb = session.load_records(record_dirs(session))
    for problem in session.kb.problems:
        session.log_once(f"record skipped: {problem}", types.MessageType.Warning)


def summary(session: Session) -> str:
    count = len(session.kb)
    sources = ", ".join(session.kb.sources)
    return f"errknow-ls {__version__}: {count} record{'' if count == 1 else 's'} from {sources}"


async def pull(session: Session) -> bool:
    """Ask the client for the ``errknow`` section; True when it answered with something."""
    caps = session.client_capabilities.workspace
    if not (caps and caps.configuration):
        return False
    params = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
    try:
        async with asyncio.timeout(CONFIGURATION_TIMEOUT):
            values = await session.client.workspace_configuration_async(params)
    except Exception as exc:  # a client that fails this keeps what it had
        log.warning("workspace/configuration failed: %s", exc)
        return False
    if not values or values[0] is None:
        return False
    session.client_settings = values[0]
    return True


def reconfigure(session: Session) -> None:
    """Apply, then check everything again: open documents, the workspace, and what clients pull."""
    apply(session)
    for document in list(session.workspace.text_documents.values()):
        session.spawn(publishing.refresh(session, document.uri))
    # Not at once: a client pulling now would still get the files the new settings exclude.
    scan.restart(session, refresh=True)
