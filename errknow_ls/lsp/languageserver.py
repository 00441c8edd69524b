"""The pygls server object: it only carries messages. What the server knows is the ``Session``'s."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from errknow_ls import __version__
from errknow_ls.lsp.protocol import ErrknowProtocol, strict_converter

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
    """pygls' server with our protocol, the task reading the client, and a hook for failed handlers."""

    def __init__(self) -> None:
        super().__init__(
            "errknow-ls",
            __version__,
            protocol_cls=ErrknowProtocol,
            converter_factory=strict_converter,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.connection: asyncio.Task[Any] | None = None
        """The task that reads the client's messages (see ``transport``)."""
        self.closed = False
        """The client's input has ended: handlers still running are cancelled, and say nothing."""
        self.on_handler_failure: Callable[[str], None] = lambda _message: None
        self.on_close: Callable[[], None] = lambda: None
        """Called once the client's input has ended (the session stops its child processes)."""
        """Told the message of a notification handler that failed (the session tells the user)."""

    def notify_encoded(self, method: str, params: str) -> None:
        """Send a notification whose params are JSON already (see ``ErrknowProtocol``)."""
        assert isinstance(self.protocol, ErrknowProtocol)
        self.protocol.notify_encoded(method, params)

    def hang_up(self) -> None:
        """Stop reading the client: the server ends as if its input had ended."""
        if self.connection is not None:
            self.connection.cancel()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A handler failed. A request was answered with the error and pygls logged it; a failed
        notification (pygls only shows "Error in server" to the user, and logs nothing) is logged
        with its traceback and handed to ``on_handler_failure``."""
        if source is FeatureRequestError:
            return
        data = getattr(error, "data", None)
        trace = "".join(data.get("traceback", [])) if isinstance(data, dict) else ""
        log.error("a handler failed: %s\n%s", error, trace)
        self.on_handler_failure(f"{error}")
