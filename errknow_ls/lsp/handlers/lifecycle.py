"""initialize / initialized: what the client can do, the first settings, the workspace scan;
the watch on the editor's process."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.lsp import configuration, parent, scan
from errknow_ls.lsp.handlers.workspace import watch_files
from errknow_ls.lsp.publishing import Channel
from errknow_ls.lsp.server import ErrknowServer


def register(server: ErrknowServer) -> None:
    server.feature(types.INITIALIZE)(initialize)
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.SHUTDOWN)(shutdown)


def initialize(ls: ErrknowServer, params: types.InitializeParams) -> None:
    ls.client_locale = params.locale
    ls.init_options = params.initialization_options
    ls.channel = Channel.for_client(params.capabilities)
    ls.spawn(parent.watch(ls, params.process_id))


async def initialized(ls: ErrknowServer, _params: types.InitializedParams) -> None:
    await configuration.pull(ls)
    configuration.apply(ls)
    ls.log_to_client(configuration.summary(ls))
    ls.ready.set()
    ls.spawn(watch_files(ls))
    scan.restart(ls)


def shutdown(ls: ErrknowServer, _params: None) -> None:
    """No new work: the workspace scan stops (a check already running finishes)."""
    if ls.scan_task is not None:
        ls.scan_task.cancel()
