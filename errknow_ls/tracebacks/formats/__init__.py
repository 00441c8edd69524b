"""One module per way of printing a traceback; ``start_parser`` picks the one a header line begins."""

from __future__ import annotations

from errknow_ls.tracebacks.formats import ipython, python, rich
from errknow_ls.tracebacks.formats.base import Parsed, Step, TracebackParser, chain_marker
from errknow_ls.tracebacks.lines import HEADER_TEXT, Line

__all__ = ["Parsed", "Step", "TracebackParser", "chain_marker", "start_parser"]


def start_parser(header: Line, depth: int) -> TracebackParser | None:
    """A parser for the traceback that ``header`` starts, or None if it starts none."""
    text = header.text
    at = text.find(HEADER_TEXT)
    if at < 0:
        return None
    if rich.BOX_TOP in text[:at]:
        return rich.RichParser(header, depth)
    if ipython.HEADER.match(text.strip()):
        return ipython.IPythonParser(header, depth)
    found = python.HEADER.search(text)
    if found is not None:
        return python.PythonParser(header, depth, found.start())
    return None
