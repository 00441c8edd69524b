"""What every traceback format shares: the exception line, its continuation lines, the result."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from errknow_ls.tracebacks.lines import HEADER_TEXT, Line
from errknow_ls.tracebacks.model import Chain, Frame, Style

EXCEPTION_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::(?: ?(?P<message>.*))?)?$")
"""``RuntimeError: message``, ``torch.distributed....ChildFailedError:``, a bare ``KeyboardInterrupt``."""

CHAIN_MARKERS = {
    "The above exception was the direct cause": Chain.CAUSE,
    "During handling of the above exception": Chain.CONTEXT,
}
MAX_MESSAGE_LINES = 50
"""A message runs on until a blank line; past this many lines it is program output, not message."""
MAX_FRAMES = 1000
"""Frames kept per traceback (the innermost ones): a runaway capture must not grow without bound."""


def chain_marker(text: str) -> Chain | None:
    stripped = text.lstrip()
    for marker, chain in CHAIN_MARKERS.items():
        if stripped.startswith(marker):
            return chain
    return None


class Step(enum.Enum):
    TAKEN = "taken"
    """The line belongs to the traceback."""
    ENDED = "ended"
    """The traceback ended before this line, which belongs to whatever comes next."""
    FAILED = "failed"
    """Not a traceback after all (or cut off before its message); the line belongs to what comes next."""


@dataclass(frozen=True, slots=True)
class Parsed:
    exception: str
    message: str
    frames: tuple[Frame, ...]
    start_line: int
    end_line: int
    message_line: int
    style: Style


class TracebackParser:
    """Reads one traceback, a line at a time, from its header on."""

    style = Style.PYTHON

    def __init__(self, header: Line, depth: int) -> None:
        self.depth = depth
        self.start = self.end = header.index
        self.frames: list[Frame] = []
        self.exception: str | None = None
        self.message: list[str] = []
        self.message_line = -1
        self.indent = 0
        """Columns to take off continuation lines of the message."""
        self.group = 0
        self.chain: Chain | None = None

    def feed(self, line: Line) -> Step:
        step = self.feed_body(line) if self.exception is None else self.feed_message(line)
        if step is Step.TAKEN:
            self.end = line.index
        return step

    def feed_body(self, line: Line) -> Step:
        raise NotImplementedError

    def add_frame(self, frame: Frame) -> None:
        self.frames.append(frame)
        if len(self.frames) > 2 * MAX_FRAMES:
            del self.frames[:-MAX_FRAMES]

    def start_message(self, line: Line, text: str) -> Step:
        """Take ``text`` (the line without indentation) as the exception line, if it is one."""
        found = EXCEPTION_LINE.match(text)
        if found is None:
            return Step.FAILED
        self.exception = found.group("type")
        self.message = [found.group("message") or ""]
        self.message_line = line.index
        return Step.TAKEN

    def feed_message(self, line: Line) -> Step:
        text = line.text
        if (
            line.blank
            or line.record
            or line.progress
            or HEADER_TEXT in text
            or chain_marker(text) is not None
            or len(text) - len(text.lstrip()) < self.indent
            or len(self.message) >= MAX_MESSAGE_LINES
        ):
            return Step.ENDED
        self.message.append(text[self.indent :])
        return Step.TAKEN

    def result(self) -> Parsed | None:
        """The traceback read so far, or None if it never reached its exception line."""
        if self.exception is None:
            return None
        message = "\n".join(self.message).rstrip()
        return Parsed(
            self.exception,
            message,
            tuple(self.frames[-MAX_FRAMES:]),
            self.start,
            self.end,
            self.message_line,
            self.style,
        )
