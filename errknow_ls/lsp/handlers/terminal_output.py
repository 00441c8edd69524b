"""``errknow/terminalOutput`` ``{text, cwd, source}``: terminal output streamed by the editor.

See ``output.terminals``.
"""

from __future__ import annotations

import logging
from typing import Any

from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import terminals
from errknow_ls.lsp.session import Session

log = logging.getLogger(__name__)
TERMINAL_OUTPUT = "errknow/terminalOutput"


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(TERMINAL_OUTPUT)(session.bind(terminal_output))


def _field(params: Any, name: str) -> Any:
    return params.get(name) if isinstance(params, dict) else getattr(params, name, None)


def terminal_output(session: Session, params: Any) -> None:
    text, cwd, source = (_field(params, name) for name in ("text", "cwd", "source"))
    if not isinstance(text, str) or not isinstance(source, str) or not source:
        log.warning("%s without text and source ignored", TERMINAL_OUTPUT)
        return
    terminals.read_output(session, text, source, cwd if isinstance(cwd, str) else None)
