"""workspace/didChangeWatchedFiles: re-check changed files; settings files re-read everything."""

from __future__ import annotations

import logging
import uuid

from lsprotocol import types

from errknow_ls.lsp import configuration, scan
from errknow_ls.lsp.files import GITIGNORE, Scope, client_path
from errknow_ls.lsp.handlers import logs
from errknow_ls.lsp.server import ErrknowServer

log = logging.getLogger(__name__)
SETTINGS_FILES = frozenset({"pyproject.toml", GITIGNORE})
WATCHED = ["**/*.py", "**/pyproject.toml", f"**/{GITIGNORE}"]


def register(server: ErrknowServer) -> None:
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched_files)


def did_change_watched_files(ls: ErrknowServer, params: types.DidChangeWatchedFilesParams) -> None:
    changes = logs.watched_changes(ls, params.changes)
    paths = [(change, path) for change in changes if (path := client_path(change.uri))]
    if any(path.name in SETTINGS_FILES for _, path in paths):
        configuration.reconfigure(ls)  # excludes or rules may have changed: the scan re-checks all
        return
    scope = Scope(ls.projects, ls.settings)
    changed = {}
    for change, path in paths:
        if change.type == types.FileChangeType.Deleted or not scope.includes(path):
            scan.forget(ls, change.uri)
        else:
            ls.scanned.add(change.uri)
            changed[change.uri] = path
    ls.spawn(scan.check_files(ls, changed))


async def watch_files(ls: ErrknowServer) -> None:
    """Ask the client to watch our files, where it lets servers register that dynamically; when
    the ``logGlobs`` setting changed since, replace the registration."""
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    if not (watched and watched.dynamic_registration):
        return
    patterns = [*WATCHED, *ls.settings.log_globs]
    previous = ls.watching
    if previous is not None and previous[1] == patterns:
        return
    registration = types.Registration(
        id=str(uuid.uuid4()),
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in patterns]
        ),
    )
    ls.watching = (registration.id, patterns)
    try:
        if previous is not None:
            unregistration = types.Unregistration(id=previous[0], method=registration.method)
            await ls.client_unregister_capability_async(
                types.UnregistrationParams(unregisterations=[unregistration])
            )
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as exc:  # no watching: files are re-checked when opened and on the next scan
        log.info("client/(un)registerCapability failed: %s", exc)
