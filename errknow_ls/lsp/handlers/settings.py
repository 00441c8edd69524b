"""workspace/didChangeConfiguration: settings take effect at once (no restart), checks re-run."""

from __future__ import annotations

from collections.abc import Mapping

from lsprotocol import types

from errknow_ls.lsp import configuration
from errknow_ls.lsp.handlers.workspace import watch_files
from errknow_ls.lsp.server import ErrknowServer
from errknow_ls.lsp.settings import SECTION, Settings


def register(server: ErrknowServer) -> None:
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(did_change_configuration)


def _ours(settings: object) -> bool:
    """The ``errknow`` section, or a flat table of our keys (Neovim sends ``settings`` as configured)."""
    if not isinstance(settings, Mapping):
        return False
    keys = {key for name, info in Settings.model_fields.items() for key in (name, info.alias) if key}
    return SECTION in settings or bool(keys & settings.keys())


async def did_change_configuration(ls: ErrknowServer, params: types.DidChangeConfigurationParams) -> None:
    if _ours(params.settings):
        ls.client_settings = params.settings
    configuration.reconfigure(ls)  # before any await: the next request already sees the change
    before = ls.client_settings
    if await configuration.pull(ls) and ls.client_settings != before:
        configuration.reconfigure(ls)
    await watch_files(ls)  # new log globs: the client watches them from now on
