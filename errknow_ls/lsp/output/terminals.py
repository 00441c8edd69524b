"""Terminal output streamed by the editor: each ``source`` (``term://...``,
``vscode-terminal://...``) gets its own scanner; a traceback it completes becomes a finding on the
user's source line. A run that ends with exit code 0 takes back what earlier runs of the same
command showed: the same command line in the same directory, in the same terminal where the editor
numbers its terminals (VS Code; a Neovim shell with prompt marks), in any terminal where each run
has its own (Neovim's ``:terminal python train.py``). Nothing here opens ``source`` or ``cwd``."""

from __future__ import annotations

import time
from dataclasses import dataclass

from errknow_ls.lsp import publishing
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from errknow_ls.lsp.output.store import Run
from errknow_ls.lsp.session import Session
from errknow_ls.tracebacks import TracebackScanner

MAX_TERMINALS = 64


@dataclass(frozen=True, slots=True)
class TerminalOutput:
    """One ``errknow/terminalOutput`` notification."""

    text: str
    source: str
    """Which run printed it: the same for every chunk of one run."""
    cwd: str | None = None
    terminal: int | None = None
    """The terminal's number as the editor shows it (VS Code: its place in the terminal list; Neovim:
    the buffer number of a shell's terminal). None where each run has a terminal of its own."""
    command: str | None = None
    """The command line of the run: with ``cwd`` and ``terminal``, what makes two runs the same program."""
    ended: bool = False
    """The run is over: nothing more comes from ``source``."""
    exit_code: int | None = None


def _run(output: TerminalOutput) -> Run:
    program = (
        "\0".join((str(output.terminal or ""), output.cwd or "", output.command))
        if output.command
        else output.source  # a run no later one can be known to repeat
    )
    name = str(output.terminal) if output.terminal else None
    return Run(output.source, program, "terminal", name, time.strftime("%H:%M"), output.command)


def read_output(session: Session, output: TerminalOutput) -> None:
    scanners = session.output.terminals
    known = scanners.pop(output.source, None)
    scanner, run = known if known is not None else (TracebackScanner(), _run(output))
    scanners[output.source] = (scanner, run)  # the most recent last
    while len(scanners) > MAX_TERMINALS:
        del scanners[next(iter(scanners))]
    found = scanner.feed(output.text) if output.text else []
    if output.ended:
        found += scanner.close()
        del scanners[output.source]
    else:
        found += [tb for tb in scanner.pending() if tb.exception and tb not in found]
    changed: set[str] = set()
    if found:
        _, hits = output_diagnostics.findings(session, found, run=run, log_uri=None, cwd=output.cwd)
        changed |= session.output.add([], hits)
    if output.ended and output.exit_code == 0:
        changed |= session.output.drop_earlier_runs(run)
    publishing.deliver(session, changed)
