"""initialize / initialized: what the client can do, the first settings, the workspace scan and
its logs; the watch on the editor's process."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.lsp import parent, reconfigure, scan
from errknow_ls.lsp.channel import Channel
from errknow_ls.lsp.file_watching import watch_files
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import logs
from errknow_ls.lsp.session import Session


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.INITIALIZE)(session.bind(initialize))
    server.feature(types.INITIALIZED)(session.bind(initialized))
    server.feature(types.SHUTDOWN)(session.bind(shutdown))


def initialize(session: Session, params: types.InitializeParams) -> None:
    session.client_locale = params.locale
    session.init_options = params.initialization_options
    session.channel = Channel.for_client(params.capabilities)
    session.start_loading_records()
    session.spawn(parent.watch(session, params.process_id))


async def initialized(session: Session, _params: types.InitializedParams) -> None:
    await reconfigure.pull(session)
    reconfigure.apply(session)
    session.log_to_client(reconfigure.summary(session))
    session.ready.set()
    session.spawn(watch_files(session))
    scan.restart(session)
    session.spawn(logs.read_workspace_logs(session))  # what runs left before this start


def shutdown(session: Session, _params: None) -> None:
    """No new work: the workspace scan stops (a check already running finishes)."""
    if session.scan_task is not None:
        session.scan_task.cancel()
