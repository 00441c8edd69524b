"""IPython and Jupyter: a ``Type   Traceback (most recent call last)`` header, ``Cell In[N], line M``
and ``File /path:LINE, in f(...)`` frames with their source around ``---->`` arrows.

Also IPython 7's ``<ipython-input-N-hash> in <module>`` / ``~/x.py in f()`` frames, whose line number
is on the arrow.
"""

from __future__ import annotations

import dataclasses
import re

from errknow_ls.tracebacks.formats.base import Step, TracebackParser
from errknow_ls.tracebacks.lines import Line
from errknow_ls.tracebacks.model import Frame, Style

HEADER = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)\s+Traceback \(most recent call last\)\s*$")
_CELL = re.compile(r"^Cell In ?\[(?P<cell>\d+)\], line (?P<line>\d+)(?:, in (?P<function>[^(]+))?")
_FILE = re.compile(r"^File (?P<file>.+?):(?P<line>\d+)(?:, in (?P<function>[^(]+)|\s*$)")
_OLD = re.compile(
    r"^(?P<file><ipython-input-(?P<cell>\d+)-[0-9a-f]+>|\S.*?\.py)\s+in\s+(?P<function>[\w.<>]+)(?:\(.*\))?\s*$"
)
_ARROW = re.compile(r"^-*>\s*(?P<line>\d+)")


def _frame(text: str) -> Frame | None:
    found = _CELL.match(text)
    if found is not None:
        number = int(found.group("cell"))
        function = (found.group("function") or "<module>").strip()
        return Frame(f"Cell In[{number}]", int(found.group("line")), function, number)
    found = _FILE.match(text)
    if found is not None:
        function = (found.group("function") or "<module>").strip()
        return Frame(found.group("file"), int(found.group("line")), function)
    found = _OLD.match(text)
    if found is not None:
        cell = int(found.group("cell")) if found.group("cell") else None
        return Frame(found.group("file"), None, found.group("function"), cell)
    return None


class IPythonParser(TracebackParser):
    style = Style.IPYTHON

    def feed_body(self, line: Line) -> Step:
        text = line.text
        if line.blank or text[0].isspace():
            return Step.TAKEN  # blank lines between frames; numbered source lines; "(...)"
        arrow = _ARROW.match(text)
        if arrow is not None:
            if self.frames and self.frames[-1].line is None:
                self.frames[-1] = dataclasses.replace(self.frames[-1], line=int(arrow.group("line")))
            return Step.TAKEN
        frame = _frame(text)
        if frame is not None:
            self.add_frame(frame)
            return Step.TAKEN
        return self.start_message(line, text)
