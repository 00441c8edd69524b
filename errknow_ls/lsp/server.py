"""The server factory and entry point: ``create_server()`` builds it, ``run()`` serves it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from errknow_ls import __version__
from errknow_ls.kb import KnowledgeBase

log = logging.getLogger(__name__)


class ErrknowServer(LanguageServer):
    """The language server, holding the knowledge base it explains errors from."""

    def __init__(self, records: Sequence[Path] = ()) -> None:
        super().__init__("errknow-ls", __version__)
        self.record_dirs = list(records)
        self.kb = KnowledgeBase.load(self.record_dirs)

    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        log.log(logging.WARNING if kind <= types.MessageType.Warning else logging.INFO, "%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))


def _on_initialized(ls: ErrknowServer, _params: types.InitializedParams) -> None:
    count = f"{len(ls.kb)} record{'' if len(ls.kb) == 1 else 's'}"
    ls.log_to_client(f"errknow-ls {__version__}: {count} from {', '.join(ls.kb.sources)}")
    for problem in ls.kb.problems:
        ls.log_to_client(f"record skipped: {problem}", types.MessageType.Warning)


def create_server(records: Sequence[Path] = ()) -> ErrknowServer:
    server = ErrknowServer(records)
    server.feature(types.INITIALIZED)(_on_initialized)
    return server


def run(records: Sequence[Path] = (), tcp: str | None = None) -> int:
    server = create_server(records)
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0
