"""The language server: its state, a factory that builds it, and ``run``."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from errknow_ls import __version__
from errknow_ls.kb import KnowledgeBase
from errknow_ls.lsp.checking import Checks
from errknow_ls.lsp.protocol import ErrknowProtocol
from errknow_ls.lsp.publishing import Channel
from errknow_ls.lsp.runtime import Runtime
from errknow_ls.lsp.settings import Project, Settings

log = logging.getLogger(__name__)
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")]
        )
    ],
    save=False,
)


class ErrknowServer(LanguageServer):
    """The knowledge base, the settings, the findings per document, and where they go."""

    def __init__(self, records: Sequence[Path] = ()) -> None:
        super().__init__(
            "errknow-ls", __version__, protocol_cls=ErrknowProtocol, notebook_document_sync=NOTEBOOK_SYNC
        )
        self.cli_records = list(records)
        self.kb = KnowledgeBase.load(self.cli_records)
        self.settings = Settings()
        self.init_options: Any = None
        self.client_settings: Any = None
        """The last settings the client sent or answered, over ``init_options``."""
        self.client_locale: str | None = None
        self.projects: list[Project] = []
        self.checks = Checks()
        self.runtime = Runtime()
        """Tracebacks seen in logs and terminals (see ``runtime``)."""
        self.channel = Channel()
        self.ready = asyncio.Event()
        """Set once the first settings are applied: nothing is checked with defaults before that."""
        self.refreshing: set[str] = set()
        """Open documents (or notebooks) with a check loop running."""
        self.documents_idle = asyncio.Event()
        """Set while no open document waits for a check: the workspace scan goes on only then."""
        self.documents_idle.set()
        self.scan_task: asyncio.Task[None] | None = None
        self.scanned: set[str] = set()
        """URIs of the workspace's files (open or not) that the last scan took in."""
        self.watching: tuple[str, list[str]] | None = None
        """The id of our file-watching registration with the client, and its glob patterns."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._told: set[str] = set()
        self._logged: set[str] = set()

    @property
    def locale(self) -> str | None:
        return self.settings.locale or self.client_locale

    def roots(self) -> list[Path]:
        roots = [Path(path) for folder in self.workspace.folders.values() if (path := to_fs_path(folder.uri))]
        if not roots and self.workspace.root_path:
            roots.append(Path(self.workspace.root_path))
        return roots

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run in the background, keeping a reference until done (the loop keeps only weak ones)."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        log.log(logging.WARNING if kind <= types.MessageType.Warning else logging.INFO, "%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def log_once(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        if message not in self._logged:
            self._logged.add(message)
            self.log_to_client(message, kind)

    def tell_once(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show a message to the user, once per server run, and log it."""
        if message not in self._told:
            self._told.add(message)
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))
            self.log_to_client(message, kind)


def create_server(records: Sequence[Path] = ()) -> ErrknowServer:
    from errknow_ls.lsp import handlers

    server = ErrknowServer(records)
    handlers.register(server)
    return server


def run(records: Sequence[Path] = (), tcp: str | None = None) -> int:
    server = create_server(records)
    # What the imports built lives as long as the server: out of the collector's sight, a full
    # collection walks only what checks make, and rarely.
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    sys.setswitchinterval(0.001)
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0
