"""CPython's own traceback: ``Traceback (most recent call last):``, ``File "...", line N, in f``.

Also what ``traceback.print_exc()``, ``logging.exception`` and torchrun's failure summary (the same
text, indented) print, and each member of an exception group once its ``|`` bars are gone.
"""

from __future__ import annotations

import re

from errknow_ls.tracebacks.formats.base import Step, TracebackParser
from errknow_ls.tracebacks.lines import HEADER_TEXT, Line
from errknow_ls.tracebacks.model import Frame

HEADER = re.compile(r"(?:Exception Group )?Traceback \(most recent call last\):")
FRAME = re.compile(
    r'^(?P<indent>\s*)File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>.+?))?\s*$'
)


class PythonParser(TracebackParser):
    def __init__(self, header: Line, depth: int, column: int) -> None:
        super().__init__(header, depth)
        before = header.text[:column]
        # Frames sit two columns right of the exception line. After a header preceded by other
        # text (a progress bar, torchrun's "traceback : "), the first frame tells where that is.
        self.base: int | None = len(before) if not before.strip() else None

    def feed_body(self, line: Line) -> Step:
        text = line.text
        if line.blank:
            return Step.FAILED
        indent = len(text) - len(text.lstrip())
        frame = FRAME.match(text)
        if frame is not None and (self.base is None or indent > self.base):
            if self.base is None:
                self.base = max(indent - 2, 0)
            function = frame.group("function") or "<module>"
            self.add_frame(Frame(frame.group("file"), int(frame.group("line")), function))
            return Step.TAKEN
        if self.base is None:
            self.base = indent  # no frame: the exception line follows the header directly
        elif indent > self.base:
            # Source lines, carets, "[Previous line repeated N more times]"; a new header is not.
            return Step.FAILED if HEADER_TEXT in text else Step.TAKEN
        if indent != self.base:
            return Step.FAILED
        self.indent = self.base
        return self.start_message(line, text[indent:])
