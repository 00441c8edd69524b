"""workspace/didChangeConfiguration: settings take effect at once (no restart), checks re-run."""

from __future__ import annotations

from collections.abc import Mapping

from lsprotocol import types

from errknow_ls.lsp import reconfigure
from errknow_ls.lsp.client_settings import SECTION, Settings
from errknow_ls.lsp.file_watching import watch_files
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import logs
from errknow_ls.lsp.session import Session


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(session.bind(did_change_configuration))


def _ours(settings: object) -> bool:
    """The ``errknow`` section, or a flat table of our keys (Neovim sends ``settings`` as configured)."""
    if not isinstance(settings, Mapping):
        return False
    keys = {key for name, info in Settings.model_fields.items() for key in (name, info.alias) if key}
    return SECTION in settings or bool(keys & settings.keys())


async def did_change_configuration(session: Session, params: types.DidChangeConfigurationParams) -> None:
    globs = session.settings.log_globs
    if _ours(params.settings):
        session.client_settings = params.settings
    reconfigure.reconfigure(session)  # before any await: the next request already sees the change
    before = session.client_settings
    if await reconfigure.pull(session) and session.client_settings != before:
        reconfigure.reconfigure(session)
    await watch_files(session)  # new log globs: the client watches them from now on
    if session.settings.log_globs != globs:
        await logs.read_workspace_logs(session)  # and the logs they name are read now
