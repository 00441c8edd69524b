"""The whole workspace, checked in the background with ``$/progress``; files re-checked on change."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import from_fs_path

from errknow_ls.core.files import MAX_SOURCE_BYTES, read_regular
from errknow_ls.lsp import publishing
from errknow_ls.lsp.checked_files import Scope
from errknow_ls.lsp.checking import StaleCheck
from errknow_ls.lsp.snapshots import Snapshot, is_open

if TYPE_CHECKING:
    from errknow_ls.lsp.session import Session

log = logging.getLogger(__name__)
REPORT_EVERY = 0.2
"""Seconds between progress reports."""


def restart(session: Session, refresh: bool = False) -> None:
    """(Re)check the whole workspace in the background, dropping a scan still running; ``refresh``
    asks a pulling client to pull again once the files now out of scope are forgotten."""
    if session.scan_task is not None:
        session.scan_task.cancel()
    session.scan_task = (
        session.spawn(scan(session, refresh)) if session.settings.scan_workspace and session.roots() else None
    )
    if session.scan_task is None:
        for uri in list(session.scanned):
            forget(session, uri)
        if refresh:
            publishing.refresh_pulls(session)


async def scan(session: Session, refresh: bool = False) -> None:
    scope = Scope(session.projects, session.settings)
    loop = asyncio.get_running_loop()
    files = await loop.run_in_executor(None, scope.files)
    uris = {uri: path for path in files if (uri := from_fs_path(str(path)))}
    for uri in session.scanned - uris.keys():
        forget(session, uri)
    session.scanned = set(uris)
    if refresh:
        publishing.refresh_pulls(session)
    async with _progress(session, "errknow: checking the workspace") as report:
        for index, (uri, path) in enumerate(uris.items(), 1):
            await session.documents_idle.wait()  # what the user is editing comes first
            await check_file(session, uri, path)
            report(f"{index}/{len(uris)} files", index * 100 // len(uris))
    publishing.refresh_pulls(session)


async def check_file(session: Session, uri: str, path: Path) -> None:
    """Check a file as it is on disk and publish it; an open document is the editor's business."""
    if is_open(session.workspace, uri):
        return
    try:
        text = await asyncio.get_running_loop().run_in_executor(None, _read, path)
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return
    session.checks.invalidate(uri)  # what is stored stands until this check replaces it
    snapshot = session.checks.stamped(Snapshot.of_text(uri, None, text, session.open_modules.texts))
    try:
        results = await session.checks.results(snapshot)
    except StaleCheck:  # opened, or changed on disk again, meanwhile
        return
    for result in results:
        if not is_open(session.workspace, uri):
            publishing.publish(session, result)


async def check_files(session: Session, files: dict[str, Path]) -> None:
    """Changed files, checked again; a client that pulls the workspace is asked to pull again."""
    for uri, path in files.items():
        await check_file(session, uri, path)
    if session.channel.pull_workspace:
        publishing.refresh_pulls(session)


def _read(path: Path) -> str:
    """A regular file's text (a FIFO or a device would block the scan or fill its memory)."""
    return read_regular(path, MAX_SOURCE_BYTES).data.decode("utf-8", errors="replace")


def forget(session: Session, uri: str) -> None:
    """A file deleted or now excluded: its diagnostics go."""
    session.scanned.discard(uri)
    if not is_open(session.workspace, uri):
        session.checks.forget(uri)
        publishing.clear(session, uri)


@asynccontextmanager
async def _progress(session: Session, title: str) -> AsyncIterator[Callable[[str, int], None]]:
    """``$/progress`` begin, reports (at most every REPORT_EVERY seconds) and end, if the client shows it."""
    window = session.client_capabilities.window
    token = f"errknow-scan-{uuid.uuid4()}"
    shown = False
    if window and window.work_done_progress:
        try:
            await session.client.work_done_progress.create_async(token)
            shown = True
        except asyncio.CancelledError:
            raise  # the scan was restarted before the client answered: nothing was begun
        except Exception as exc:  # the client refused the token: no progress, still the scan
            log.info("no progress: %s", exc)
    if shown:
        session.client.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, percentage=0))
    last = 0.0
    loop = asyncio.get_running_loop()

    def report(message: str, percentage: int) -> None:
        nonlocal last
        if shown and loop.time() - last >= REPORT_EVERY:
            last = loop.time()
            session.client.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    try:
        yield report
    finally:
        if shown:
            session.client.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
