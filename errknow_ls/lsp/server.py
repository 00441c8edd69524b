"""The factory that builds the server (a pygls server and its session, the handlers bound to both),
and ``run``."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from errknow_ls.core.collector import collect_rarely
from errknow_ls.core.heap import keep_large_blocks_resident
from errknow_ls.lsp import handlers, transport
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.session import Session


def create_server(records: Sequence[Path] = ()) -> ErrknowServer:
    server = ErrknowServer()
    handlers.register(server, Session(server, records))
    return server


def run(records: Sequence[Path] = (), tcp: str | None = None) -> int:
    """Serve one client; the exit code is 0, or 1 for ``exit`` without ``shutdown`` first."""
    server = create_server(records)
    # What the imports built lives as long as the server: out of the collector's sight, a full
    # collection walks only what checks make, and rarely.
    collect_rarely()
    keep_large_blocks_resident()  # an edit of a large document reuses the last one's pages
    sys.setswitchinterval(0.001)
    if tcp:
        host, _, port = tcp.rpartition(":")
        return transport.serve_tcp(server, host or "127.0.0.1", int(port))
    return transport.serve_stdio(server)
