"""Terminal output streamed by the editor: each ``source`` (``term://...``,
``vscode-terminal://...``) gets its own scanner; a traceback it completes becomes a finding on the
user's source line. Nothing here opens ``source`` or ``cwd``."""

from __future__ import annotations

from errknow_ls.lsp import publishing
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from errknow_ls.lsp.session import Session
from errknow_ls.tracebacks import TracebackScanner

MAX_TERMINALS = 64


def read_output(session: Session, text: str, source: str, cwd: str | None) -> None:
    scanners = session.output.terminals
    scanner = scanners.pop(source, None) or TracebackScanner()
    scanners[source] = scanner  # the most recent last
    while len(scanners) > MAX_TERMINALS:
        del scanners[next(iter(scanners))]
    found = scanner.feed(text)
    found += [tb for tb in scanner.pending() if tb.exception and tb not in found]
    if not found:
        return
    _, hits = output_diagnostics.findings(session, found, origin=source, label=source, log_uri=None, cwd=cwd)
    publishing.deliver(session, session.output.add([], hits))
