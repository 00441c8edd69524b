"""What the server knows, apart from the transport (the pygls server only carries messages):
settings, projects, the knowledge base, the checks, the findings from program output, and the
channel to the client. Handlers are functions of (session, params)."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import Workspace

from errknow_ls.kb import KnowledgeBase
from errknow_ls.lsp.channel import Channel
from errknow_ls.lsp.checking import Checks, Result
from errknow_ls.lsp.client_settings import Settings
from errknow_ls.lsp.known_results import KnownResults
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output.store import OutputFindings
from errknow_ls.lsp.snapshots import OpenModules, State
from errknow_ls.project import Project

log = logging.getLogger(__name__)
FAILED = "errknow-ls: a handler failed and the server goes on (its log has the details)"


class Session:
    """One client's session: state, and the pygls server (``client``) that messages go through."""

    def __init__(self, client: ErrknowServer, records: Sequence[Path] = ()) -> None:
        self.client = client
        self.cli_records = list(records)
        self._kb: KnowledgeBase | None = None
        """The records, once loaded (see ``kb``)."""
        self._records_loading: tuple[list[Path], Future[KnowledgeBase]] | None = None
        self.settings = Settings()
        self.init_options: Any = None
        self.client_settings: Any = None
        """The last settings the client sent or answered, over ``init_options``."""
        self.client_locale: str | None = None
        self.projects: list[Project] = []
        self.checks = Checks()
        self.known = KnownResults()
        """What the results cache ``check`` shares holds: published for a document before its first check."""
        self.known_served: dict[str, Result] = {}
        """Results from that cache sent (pushed, or answered to a pull) and not yet confirmed, by URI."""
        self.known_lookups: dict[str, tuple[State, asyncio.Future[list[Result]]]] = {}
        """The lookup in that cache for each document's version being checked for the first time."""
        self.output = OutputFindings()
        """Tracebacks seen in logs and terminals (see ``output``)."""
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
        self.open_modules = OpenModules()
        """The open documents' texts, for the checks to read the project's modules from."""
        self.stale_importers: dict[str, Path] = {}
        """Closed files to check again, by URI: they import a module that changed (``importers``)."""
        self.importers_task: asyncio.Task[None] | None = None
        """What checks ``stale_importers``, while there are any."""
        self.watching: tuple[str, list[str]] | None = None
        """The id of our file-watching registration with the client, and its glob patterns."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._told: set[str] = set()
        self._logged: set[str] = set()
        client.on_handler_failure = self._handler_failed
        client.on_close = self.checks.stop_all

    @property
    def workspace(self) -> Workspace:
        return self.client.workspace

    @property
    def client_capabilities(self) -> types.ClientCapabilities:
        return self.client.client_capabilities

    @property
    def locale(self) -> str | None:
        return self.settings.locale or self.client_locale

    def roots(self) -> list[Path]:
        folders = self.workspace.folders.values()
        roots = [Path(path) for folder in folders if (path := to_fs_path(folder.uri))]
        if not roots and self.workspace.root_path:
            roots.append(Path(self.workspace.root_path))
        return roots

    @property
    def kb(self) -> KnowledgeBase:
        """The records the server explains with. Until the first settings apply (``reconfigure``),
        the built-in and command line's ones, loading since ``initialize``: what asks before they
        are there (a log opened, a run's output sent, at once) waits for them, never an empty set."""
        if self._kb is None:
            loading = self._records_loading
            self._kb = loading[1].result() if loading is not None else KnowledgeBase.load(self.cli_records)
        return self._kb

    @kb.setter
    def kb(self, records: KnowledgeBase) -> None:
        self._kb = records

    def start_loading_records(self) -> None:
        """Load the built-in records and the command line's on a thread, while the client takes
        ``initialize`` in and sends its settings (the event loop waits on the client then)."""
        dirs = list(self.cli_records)
        loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="records")
        self._records_loading = (dirs, loader.submit(KnowledgeBase.load, dirs))
        loader.shutdown(wait=False)  # its thread ends with the load

    def load_records(self, dirs: list[Path]) -> KnowledgeBase:
        """The records of ``dirs``: those loading since the start when the settings add none."""
        loading, self._records_loading = self._records_loading, None
        if loading is not None and loading[0] == dirs:
            return loading[1].result()
        return KnowledgeBase.load(dirs)

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run in the background, keeping a reference until done (the loop keeps only weak ones)."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def bind(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        """``handler(session, *arguments)`` as pygls calls a feature or a command: ``(*arguments)``."""
        if inspect.iscoroutinefunction(handler):

            async def bound_async(*arguments: Any) -> Any:
                try:
                    return await handler(self, *arguments)
                except asyncio.CancelledError:
                    if self.client.closed:
                        return None  # the session is over: pygls must not report the cancellation
                    raise

            return bound_async

        def bound(*arguments: Any) -> Any:
            return handler(self, *arguments)

        return bound

    def _handler_failed(self, message: str) -> None:
        self.client.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=message))
        self.tell_once(FAILED, types.MessageType.Error)

    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        log.log(logging.WARNING if kind <= types.MessageType.Warning else logging.INFO, "%s", message)
        self.client.window_log_message(types.LogMessageParams(type=kind, message=message))

    def log_once(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        if message not in self._logged:
            self._logged.add(message)
            self.log_to_client(message, kind)

    def tell_once(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        """Show a message to the user, once per server run, and log it."""
        if message not in self._told:
            self._told.add(message)
            self.client.window_show_message(types.ShowMessageParams(type=kind, message=message))
            self.log_to_client(message, kind)
