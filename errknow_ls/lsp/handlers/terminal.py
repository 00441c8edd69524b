"""``errknow/terminalOutput`` ``{text, cwd, source}``: terminal output streamed by the editor.

Each ``source`` (``term://...``, ``vscode-terminal://...``) gets its own scanner; a traceback it
completes becomes a diagnostic on the user's source line. Nothing here opens ``source`` or ``cwd``.
"""

from __future__ import annotations

import logging
from typing import Any

from errknow_ls.lsp import runtime
from errknow_ls.lsp.server import ErrknowServer
from errknow_ls.tracebacks import TracebackScanner

log = logging.getLogger(__name__)
TERMINAL_OUTPUT = "errknow/terminalOutput"
MAX_TERMINALS = 64


def register(server: ErrknowServer) -> None:
    server.feature(TERMINAL_OUTPUT)(terminal_output)


def _field(params: Any, name: str) -> Any:
    return params.get(name) if isinstance(params, dict) else getattr(params, name, None)


def terminal_output(ls: ErrknowServer, params: Any) -> None:
    text, cwd, source = (_field(params, name) for name in ("text", "cwd", "source"))
    if not isinstance(text, str) or not isinstance(source, str) or not source:
        log.warning("%s without text and source ignored", TERMINAL_OUTPUT)
        return
    scanners = ls.runtime.terminals
    scanner = scanners.pop(source, None) or TracebackScanner()
    scanners[source] = scanner  # the most recent last
    while len(scanners) > MAX_TERMINALS:
        del scanners[next(iter(scanners))]
    found = scanner.feed(text)
    found += [tb for tb in scanner.pending() if tb.exception and tb not in found]
    if not found:
        return
    _, hits = runtime.findings(
        ls, found, origin=source, label=source, log_uri=None, cwd=cwd if isinstance(cwd, str) else None
    )
    runtime.deliver(ls, ls.runtime.add([], hits))
