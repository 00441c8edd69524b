"""One small module per concern; each ``register`` adds its features to the server."""

from __future__ import annotations

from errknow_ls.lsp.handlers import (
    code_actions,
    commands,
    diagnostics,
    did_change_configuration,
    did_change_watched_files,
    documents,
    hover,
    lifecycle,
    notebooks,
    terminal_output,
)
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.session import Session

MODULES = (
    lifecycle,
    did_change_configuration,
    documents,
    notebooks,
    diagnostics,
    hover,
    code_actions,
    commands,
    did_change_watched_files,
    terminal_output,
)


def register(server: ErrknowServer, session: Session) -> None:
    for module in MODULES:
        module.register(server, session)
