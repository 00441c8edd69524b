"""Where diagnostics go: pushed with ``publishDiagnostics``, or left for the client to pull.

Never both for one document (Neovim would show duplicates). A client that can pull gets open
documents by pull; files that are not open (the workspace scan) are pushed unless the client also
asks ``workspace/diagnostic``, which Neovim 0.11 never does. A file pushed while closed is cleared
when the client opens it and starts pulling it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types

from errknow_ls.lsp import runtime
from errknow_ls.lsp.checking import Result
from errknow_ls.lsp.snapshots import is_open, snapshot_of

if TYPE_CHECKING:
    from errknow_ls.lsp.server import ErrknowServer

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Channel:
    pull_open: bool = False
    """The client sends ``textDocument/diagnostic`` for open documents."""
    pull_workspace: bool = False
    """... and ``workspace/diagnostic`` for the rest."""
    refresh: bool = False
    """The client takes ``workspace/diagnostic/refresh``."""
    pushed: set[str] = field(default_factory=set)
    """URIs with pushed diagnostics that are not empty."""

    @classmethod
    def for_client(cls, caps: types.ClientCapabilities) -> Channel:
        pull = bool(caps.text_document and caps.text_document.diagnostic)
        refresh = bool(
            caps.workspace and caps.workspace.diagnostics and caps.workspace.diagnostics.refresh_support
        )
        # No capability says "I will ask workspace/diagnostic": refresh support is the best hint,
        # and the first such request switches a client over anyway (see pull_workspace_now).
        return cls(pull_open=pull, pull_workspace=pull and refresh, refresh=refresh)

    def pulls(self, open_document: bool) -> bool:
        return self.pull_open if open_document else self.pull_workspace


def push(ls: ErrknowServer, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
    if diagnostics:
        ls.channel.pushed.add(uri)
    else:
        ls.channel.pushed.discard(uri)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
    )


def publish(ls: ErrknowServer, result: Result) -> None:
    """Push a result unless the client pulls it; a closed file's result never covers an open one."""
    open_document = is_open(ls.workspace, result.uri)
    if result.version is None and open_document:
        return
    if ls.channel.pulls(open_document):
        return
    diagnostics = runtime.merged(ls, result)
    if diagnostics or result.uri in ls.channel.pushed or result.version is not None:
        push(ls, result.uri, diagnostics, result.version)


def clear(ls: ErrknowServer, uri: str) -> None:
    """Take back what was pushed for ``uri`` (closed, deleted, excluded, or now pulled)."""
    if uri in ls.channel.pushed or not ls.channel.pull_open:
        push(ls, uri, [], None)


def pull_workspace_now(ls: ErrknowServer) -> None:
    """The client asked ``workspace/diagnostic``: it gets closed files that way from now on."""
    if ls.channel.pull_workspace:
        return
    ls.channel.pull_workspace = True
    for uri in sorted(ls.channel.pushed):
        if not is_open(ls.workspace, uri):
            push(ls, uri, [], None)


async def refresh(ls: ErrknowServer, uri: str) -> None:
    """Check an open document until a result for its current version is out, then publish it.

    One loop per document: edits that arrive meanwhile only make the loop go round once more,
    and a result for an older version is never published over a newer one.
    """
    snapshot = snapshot_of(ls.workspace, uri)
    if snapshot is None or snapshot.key in ls.refreshing:
        return
    key = snapshot.key
    ls.refreshing.add(key)
    ls.documents_idle.clear()
    try:
        await ls.ready.wait()
        while snapshot is not None:
            results = await ls.checks.results(snapshot)
            current = snapshot_of(ls.workspace, snapshot.key)
            if current is not None and ls.checks.key_of(current) == ls.checks.key_of(snapshot):
                for result in results:
                    publish(ls, result)
                return
            snapshot = current
    except Exception:
        log.exception("checking %s failed", uri)
    finally:
        ls.refreshing.discard(key)
        if not ls.refreshing:
            ls.documents_idle.set()


async def current(ls: ErrknowServer, uri: str) -> Result | None:
    """The result for the document's current version (checked now if need be); None if not open."""
    await ls.ready.wait()
    snapshot = snapshot_of(ls.workspace, uri)
    if snapshot is None:
        return None
    wanted = unquote(uri)
    return next((r for r in await ls.checks.results(snapshot) if unquote(r.uri) == wanted), None)


def refresh_pulls(ls: ErrknowServer) -> None:
    """Settings or records changed: ask a pulling client to pull again."""
    if ls.channel.pull_open and ls.channel.refresh:
        ls.workspace_diagnostic_refresh(None)
