"""``errknow/terminalOutput`` ``{text, cwd, source, terminal?, command?, end?, exitCode?}``: terminal
output streamed by the editor, and the end of a run.

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
    terminal, command, ended, exit_code = (
        _field(params, name) for name in ("terminal", "command", "end", "exitCode")
    )
    terminals.read_output(
        session,
        terminals.TerminalOutput(
            text,
            source,
            cwd if isinstance(cwd, str) else None,
            terminal if _whole(terminal) else None,
            command if isinstance(command, str) else None,
            ended is True,
            exit_code if _whole(exit_code) else None,
        ),
    )


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
