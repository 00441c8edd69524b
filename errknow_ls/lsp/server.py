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
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from errknow_ls import __version__
from errknow_ls.kb import KnowledgeBase
from errknow_ls.lsp.checking import Checks
from errknow_ls.lsp.protocol import ErrknowProtocol, strict_converter
from errknow_ls.lsp.publishing import Channel
from errknow_ls.lsp.runtime import Runtime
from errknow_ls.lsp.settings import Project, Settings

log = logging.getLogger(__name__)
FAILED = "errknow-ls: a handler failed and the server goes on (its log has the details)"
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
            "errknow-ls",
            __version__,
            protocol_cls=ErrknowProtocol,
            converter_factory=strict_converter,
            notebook_document_sync=NOTEBOOK_SYNC,
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
        self.connection: asyncio.Task[Any] | None = None
        """The task that reads the client's messages (see ``transport``)."""
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

    def hang_up(self) -> None:
        """Stop reading the client: the server ends as if its input had ended."""
        if self.connection is not None:
            self.connection.cancel()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A handler failed. A request was answered with the error and pygls logged it; a failed
        notification (pygls only shows "Error in server" to the user, and logs nothing) is logged
        with its traceback, sent to the client's log, and the user is told once."""
        if source is FeatureRequestError:
            return
        data = getattr(error, "data", None)
        trace = "".join(data.get("traceback", [])) if isinstance(data, dict) else ""
        log.error("a handler failed: %s\n%s", error, trace)
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=f"{error}"))
        self.tell_once(FAILED, types.MessageType.Error)

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
    """Serve one client; the exit code is 0, or 1 for ``exit`` without ``shutdown`` first."""
    from errknow_ls.lsp import transport

    server = create_server(records)
    # What the imports built lives as long as the server: out of the collector's sight, a full
    # collection walks only what checks make, and rarely.
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    sys.setswitchinterval(0.001)
    if tcp:
        host, _, port = tcp.rpartition(":")
        return transport.serve_tcp(server, host or "127.0.0.1", int(port))
    return transport.serve_stdio(server)
