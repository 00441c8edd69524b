"""One small module per concern; each ``register`` adds its features to the server."""

from __future__ import annotations

from errknow_ls.lsp.handlers import (
    code_actions,
    commands,
    diagnostics,
    documents,
    hover,
    lifecycle,
    notebooks,
    settings,
    terminal,
    workspace,
)
from errknow_ls.lsp.server import ErrknowServer

MODULES = (
    lifecycle,
    settings,
    documents,
    notebooks,
    diagnostics,
    hover,
    code_actions,
    commands,
    workspace,
    terminal,
)


def register(server: ErrknowServer) -> None:
    for module in MODULES:
        module.register(server)
