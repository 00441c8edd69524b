"""Where diagnostics go: pushed with ``publishDiagnostics``, or left for the client to pull.

Never both for one document (Neovim would show duplicates). A client that can pull gets open
documents by pull; files that are not open (the workspace scan) are pushed unless the client also
asks ``workspace/diagnostic``, which Neovim 0.11 never does. A file pushed while closed is cleared
when the client opens it and starts pulling it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types

from errknow_ls.lsp.checking import Result, StaleCheck
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from errknow_ls.lsp.snapshots import Snapshot, is_open, open_document

if TYPE_CHECKING:
    from errknow_ls.lsp.session import Session

log = logging.getLogger(__name__)


def push(session: Session, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
    if diagnostics:
        session.channel.pushed.add(uri)
    else:
        session.channel.pushed.discard(uri)
    session.client.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
    )


def publish(session: Session, result: Result) -> None:
    """Push a result unless the client pulls it; a closed file's result never covers an open one."""
    open_document = is_open(session.workspace, result.uri)
    if result.version is None and open_document:
        return
    if session.channel.pulls(open_document):
        return
    if output_diagnostics.diagnostics(session, result.uri):
        # what runs showed here joins the static finding of the same cause, as `deliver` does
        merged = output_diagnostics.merged_into(session, result.uri, result.diagnostics)
        push(session, result.uri, merged, result.version)
    elif result.diagnostics or result.uri in session.channel.pushed or result.version is not None:
        _push_encoded(session, result)


def _push_encoded(session: Session, result: Result) -> None:
    """``push`` of a check's own diagnostics, in the JSON the check made of them (off the event loop)."""
    if result.diagnostics:
        session.channel.pushed.add(result.uri)
    else:
        session.channel.pushed.discard(result.uri)
    uri, version = json.dumps(result.uri), json.dumps(result.version)
    params = f'{{"uri": {uri}, "diagnostics": {result.encoded}, "version": {version}}}'
    session.client.notify_encoded(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)


def clear(session: Session, uri: str) -> None:
    """Take back what was pushed for ``uri`` (closed, deleted, excluded, or now pulled)."""
    if uri in session.channel.pushed or not session.channel.pull_open:
        push(session, uri, [], None)


def pull_workspace_now(session: Session) -> None:
    """The client asked ``workspace/diagnostic``: it gets closed files that way from now on."""
    if session.channel.pull_workspace:
        return
    session.channel.pull_workspace = True
    for uri in sorted(session.channel.pushed):
        if not is_open(session.workspace, uri):
            push(session, uri, [], None)


async def refresh(session: Session, uri: str) -> None:
    """Check an open document until a result for its current version is out, then publish it.

    One loop per document: edits that arrive meanwhile only make the loop go round once more (a
    check in a process of its own that they made stale is stopped at once), and a result for an
    older version is never published over a newer one. Before the document's first check here
    starts, what the results cache knows of it is published (``known``); the check then confirms it
    (nothing is sent again) or replaces it.
    """
    snapshot = _snapshot(session, uri)
    if snapshot is None:
        return
    if snapshot.key in session.refreshing:
        session.checks.supersede(snapshot)
        return
    key = snapshot.key
    session.refreshing.add(key)
    session.documents_idle.clear()
    try:
        await session.ready.wait()
        snapshot = _snapshot(session, key)
        if snapshot is not None:
            for result in await known(session, snapshot):
                publish(session, result)
        while snapshot is not None:
            try:
                results = await session.checks.results(snapshot)
            except StaleCheck:  # a newer version is being checked: go round for it
                snapshot = _snapshot(session, key)
                continue
            current = _snapshot(session, snapshot.key)
            if current is not None and session.checks.key_of(current) == session.checks.key_of(snapshot):
                replaced = False
                for result in results:
                    served = session.known_served.pop(result.uri, None)
                    if not _confirms(served, result):
                        publish(session, result)
                        replaced |= served is not None
                # An edit in one cell moves diagnostics in the others; a pull answered from the
                # cache was replaced.
                if snapshot.notebook or (replaced and session.channel.pulls(True)):
                    refresh_pulls(session)
                return
            snapshot = current
    except Exception:
        log.exception("checking %s failed", uri)
        _withdraw_known(session, key)
    finally:
        session.known_lookups.pop(key, None)
        session.refreshing.discard(key)
        if not session.refreshing:
            session.documents_idle.set()


def known(session: Session, snapshot: Snapshot) -> asyncio.Future[list[Result]]:
    """What the results cache holds for ``snapshot`` (see ``known_results``) before its first check
    here; looked up once per document version, by ``refresh`` and a pull alike."""
    looked = session.known_lookups.get(snapshot.key)
    # Served only where the check can replace it: pushed again, or pulled again when asked to.
    replaceable = not session.channel.pull_open or session.channel.refresh
    if looked is None and (session.checks.stored(snapshot.key) is not None or not replaceable):
        done: asyncio.Future[list[Result]] = asyncio.get_running_loop().create_future()
        done.set_result([])
        return done
    if looked is None or looked[0] != snapshot.state:
        looked = (snapshot.state, asyncio.ensure_future(_look_up(session, snapshot)))
        session.known_lookups[snapshot.key] = looked
    return asyncio.shield(looked[1])


async def _look_up(session: Session, snapshot: Snapshot) -> list[Result]:
    """Nothing once the document was checked here, or when it or the settings moved on meanwhile.
    What this gives is kept in ``session.known_served`` until a check confirms or replaces it."""
    if session.checks.stored(snapshot.key) is not None:
        return []
    analyzer = session.checks.analyzer
    try:
        found = await asyncio.get_running_loop().run_in_executor(
            None, session.known.lookup, analyzer, snapshot
        )
    except Exception:
        log.exception("reading the results cache for %s failed", snapshot.key)
        return []
    current = _snapshot(session, snapshot.key)
    if current is None or current.state != snapshot.state or session.checks.analyzer is not analyzer:
        return []
    if session.checks.stored(snapshot.key) is not None:
        return []
    for result in found:
        session.known_served[result.uri] = result
    return found


def _confirms(served: Result | None, checked: Result) -> bool:
    """The check found what was served from the cache for the same version: nothing to send again."""
    return served is not None and served.version == checked.version and served.encoded == checked.encoded


def _withdraw_known(session: Session, uri: str) -> None:
    """The check failed: what was served from the cache for ``uri`` is unconfirmed and goes."""
    served = session.known_served.pop(uri, None)
    if served is None:
        return
    if session.channel.pulls(True):
        refresh_pulls(session)
    elif is_open(session.workspace, uri):
        push(session, uri, [], served.version)


def _snapshot(session: Session, uri: str) -> Snapshot | None:
    return session.checks.snapshot(session.workspace, uri, session.open_modules.texts)


def closed_file_result(session: Session, uri: str) -> Result | None:
    """What the workspace scan found in a file that is not open (what push sends for it)."""
    stored = session.checks.stored(uri)
    if stored is None or stored.version is not None or is_open(session.workspace, uri):
        return None
    return stored


async def current(session: Session, uri: str) -> Result | None:
    """The result for the document's current version (checked now if need be); None if not open."""
    await session.ready.wait()
    wanted = unquote(uri)
    while (snapshot := _snapshot(session, uri)) is not None:
        served = next((r for r in await known(session, snapshot) if unquote(r.uri) == wanted), None)
        if served is not None and session.known_served.get(served.uri) is served:
            return served  # not confirmed yet: ``refresh`` confirms it, or asks for a new pull
        try:
            results = await session.checks.results(snapshot)
        except StaleCheck:  # edited meanwhile: the result for the newer version
            continue
        return next((r for r in results if unquote(r.uri) == wanted), None)
    return None


def refresh_pulls(session: Session) -> None:
    """Settings or records changed: ask a pulling client to pull again."""
    if session.channel.pull_open and session.channel.refresh:
        session.client.workspace_diagnostic_refresh(None)


def deliver(session: Session, uris: Iterable[str]) -> None:
    """Send the diagnostics of URIs whose findings from output changed, by the channel each one takes."""
    refresh = False
    for uri in sorted(set(uris)):
        document = open_document(session.workspace, uri)
        if session.channel.pulls(document is not None):
            refresh = True
            continue
        version = None
        static: tuple[types.Diagnostic, ...] = ()
        if document is not None:
            version = document.version
            stored = session.checks.stored(uri)
            if stored is not None and stored.version == version:
                static = stored.diagnostics
        elif (stored := session.checks.stored(uri)) is not None and stored.version is None:
            static = stored.diagnostics
        push(session, uri, output_diagnostics.merged_into(session, uri, static), version)
    if refresh and session.channel.refresh:
        session.client.workspace_diagnostic_refresh(None)
