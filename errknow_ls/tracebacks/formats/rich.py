"""rich's traceback: frames in a box, ``│ /path/file.py:LINE in func │``, the message after it.

rich wraps everything at the console width: a long location runs over several box lines, folded
inside a word when the word fills the line, and the message after the box is re-wrapped too.
"""

from __future__ import annotations

import re

from errknow_ls.tracebacks.formats.base import Step, TracebackParser
from errknow_ls.tracebacks.lines import Line
from errknow_ls.tracebacks.model import Frame, Style

BOX_TOP = "╭"
_BOX_SIDE = "│"
_BOX_BOTTOM = "╰"
_BOX_CHARS = "╭│╰"
_CODE_MARK = "❱"
_LOCATION = re.compile(r"^(?P<file>.+):(?P<line>\d+) ?in ?(?P<function>\S+)$")
_NO_FILE = re.compile(r"^in (?P<function>\S+):(?P<line>\d+)$")


def _location(text: str) -> Frame | None:
    found = _LOCATION.match(text)
    if found is not None:
        return Frame(found.group("file"), int(found.group("line")), found.group("function"))
    found = _NO_FILE.match(text)
    if found is not None:
        return Frame("<unknown>", int(found.group("line")), found.group("function"))
    return None


class RichParser(TracebackParser):
    style = Style.RICH

    def __init__(self, header: Line, depth: int) -> None:
        super().__init__(header, depth)
        self.inner_width = len(header.text.strip()) - 4  # "│ " + content + " │"
        self.in_box = True
        self.pieces: list[str] = []

    def feed_body(self, line: Line) -> Step:
        text = line.text.strip()
        if not self.in_box:
            return Step.FAILED if line.blank else self.start_message(line, text)
        if text.startswith(_BOX_BOTTOM):
            self._flush()
            self.in_box = False
            return Step.TAKEN
        if not text.startswith(_BOX_SIDE):
            return Step.FAILED
        content = text[1:].removesuffix(_BOX_SIDE)
        content = content.removeprefix(" ").rstrip()
        if not content or content[0].isspace() or content[0] == _CODE_MARK or content[0] in _BOX_CHARS:
            self._flush()  # a blank line, source code, a nested box of locals
        else:
            self.pieces.append(content)
        return Step.TAKEN

    def _flush(self) -> None:
        if not self.pieces:
            return
        joined = self.pieces[0]
        for before, piece in zip(self.pieces, self.pieces[1:], strict=False):
            # A piece filling the line was folded inside a word; a shorter one broke at a space.
            joined += piece if len(before) >= self.inner_width else f" {piece}"
        self.pieces.clear()
        frame = _location(joined)
        if frame is not None:
            self.add_frame(frame)
