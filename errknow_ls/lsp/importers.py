"""A module of the project changed (edited in the editor, saved, closed, changed on disk): the files
that import it are checked again, found by what each one's last check read (``Result.read``).

An open importer is checked again at once with the editor's texts; a closed one (the workspace
scan's) from disk, one after the other while no open document waits, as the scan does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from errknow_ls.lsp import publishing, scan
from errknow_ls.lsp.checked_files import client_path
from errknow_ls.lsp.snapshots import is_open, module_key

if TYPE_CHECKING:
    from errknow_ls.lsp.session import Session


def module_changed(
    session: Session,
    uris: Iterable[str],
    checked_anyway: Iterable[str] = (),
    made_or_removed: Iterable[str] = (),
) -> None:
    """The modules at ``uris`` say something new (in the editor, or on disk): the checks read their
    texts from now on, and what imports them is checked again (but not the ``checked_anyway``
    files, which the caller checks itself). Files or folders ``made_or_removed`` change what the
    folders above them hold: a check whose import found nothing in one of those is checked again."""
    uris = list(uris)
    for uri in uris:
        session.open_modules.update(session.workspace, uri)
    modules = {key for uri in uris if (key := module_key(uri)) is not None}
    for uri in made_or_removed:  # an import may have looked for it, or for a folder it made
        key = module_key(uri)
        if key is not None:
            modules.update([key, *map(str, Path(key).parents)])
    skip = set(checked_anyway)
    importers = session.checks.readers(modules) - skip
    if not importers:
        return
    opened = sorted(uri for uri in importers if is_open(session.workspace, uri))
    for uri in opened:
        session.checks.invalidate(uri)
    if opened:
        session.spawn(_check_open(session, opened))
    for uri in sorted(importers - set(opened)):
        path = client_path(uri)
        if uri in session.scanned and path is not None:
            session.stale_importers[uri] = path
    if session.stale_importers and session.importers_task is None:
        session.importers_task = session.spawn(_check_closed(session))


async def _check_open(session: Session, uris: list[str]) -> None:
    await asyncio.gather(*(publishing.refresh(session, uri) for uri in uris))
    if session.channel.pull_open:
        publishing.refresh_pulls(session)  # the client pulls what it shows again


async def _check_closed(session: Session) -> None:
    try:
        while session.stale_importers:
            await session.documents_idle.wait()  # what the user is editing comes first
            uri = next(iter(session.stale_importers))
            path: Path = session.stale_importers.pop(uri)
            await scan.check_file(session, uri, path)
        if session.channel.pull_workspace:
            publishing.refresh_pulls(session)
    finally:
        session.importers_task = None
