"""workspace/didChangeWatchedFiles: re-check changed files (a directory's event stands for the files
below it) and the files that import them; settings files re-read everything."""

from __future__ import annotations

import logging

from lsprotocol import types

from errknow_ls.lsp import importers, reconfigure, scan
from errknow_ls.lsp.checked_files import PYPROJECT, Scope, client_path, file_events
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import logs
from errknow_ls.lsp.session import Session
from errknow_ls.project import GITIGNORE

log = logging.getLogger(__name__)
SETTINGS_FILES = frozenset({PYPROJECT, GITIGNORE})


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(session.bind(did_change_watched_files))


def did_change_watched_files(session: Session, params: types.DidChangeWatchedFilesParams) -> None:
    scope = Scope(session.projects, session.settings)
    changes = file_events(scope, logs.watched_changes(session, params.changes), session.scanned)
    paths = [(change, path) for change in changes if (path := client_path(change.uri))]
    if any(path.name in SETTINGS_FILES for _, path in paths):
        reconfigure.reconfigure(session)  # excludes or rules may have changed: the scan re-checks all
        return
    changed = {}
    for change, path in paths:
        if change.type == types.FileChangeType.Deleted or not scope.includes(path):
            scan.forget(session, change.uri)
        else:
            session.scanned.add(change.uri)
            changed[change.uri] = path
    session.spawn(scan.check_files(session, changed))
    entries = [c.uri for c in params.changes if c.type != types.FileChangeType.Changed]
    importers.module_changed(
        session, [change.uri for change, _ in paths], checked_anyway=changed, made_or_removed=entries
    )
