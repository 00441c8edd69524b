"""Asking the client to watch the files the server reads (sources, settings files, the logs that
``logGlobs`` names), where it lets servers register that dynamically."""

from __future__ import annotations

import logging
import uuid

from lsprotocol import types

from errknow_ls.lsp.session import Session
from errknow_ls.project import GITIGNORE

log = logging.getLogger(__name__)
WATCHED = ["**/*.py", "**/pyproject.toml", f"**/{GITIGNORE}"]


async def watch_files(session: Session) -> None:
    """Ask the client to watch our files, where it lets servers register that dynamically; when
    the ``logGlobs`` setting changed since, replace the registration."""
    caps = session.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    if not (watched and watched.dynamic_registration):
        return
    patterns = [*WATCHED, *session.settings.log_globs]
    previous = session.watching
    if previous is not None and previous[1] == patterns:
        return
    registration = types.Registration(
        id=str(uuid.uuid4()),
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in patterns]
        ),
    )
    session.watching = (registration.id, patterns)
    try:
        if previous is not None:
            unregistration = types.Unregistration(id=previous[0], method=registration.method)
            await session.client.client_unregister_capability_async(
                types.UnregistrationParams(unregisterations=[unregistration])
            )
        await session.client.client_register_capability_async(
            types.RegistrationParams(registrations=[registration])
        )
    except Exception as exc:  # no watching: files are re-checked when opened and on the next scan
        log.info("client/(un)registerCapability failed: %s", exc)
