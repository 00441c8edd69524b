"""What the reader returns: a parsed traceback, its frames, and where it sits in the input."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Style(enum.StrEnum):
    """Which program printed the traceback."""

    PYTHON = "python"
    IPYTHON = "ipython"
    RICH = "rich"


class Chain(enum.StrEnum):
    """How a traceback follows the one before it in its group."""

    CAUSE = "cause"
    """``raise ... from previous``: "The above exception was the direct cause of the following exception"."""
    CONTEXT = "context"
    """Raised while handling the previous one: "During handling of the above exception, another ..."."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One ``File "...", line N, in f`` entry, outermost first as printed."""

    file: str
    line: int | None
    function: str
    cell: int | None = None
    """The execution count N of an IPython ``Cell In[N]`` / ``<ipython-input-N-...>`` frame."""


@dataclass(frozen=True, slots=True)
class Traceback:
    """One exception as printed: its frames, its type and message, and its place in the input.

    Line numbers are 0-based indices of physical lines (``\\n``-separated) in everything read so far;
    for a notebook's saved error output they count lines of that output's joined traceback text.
    """

    exception: str
    """The exception class as printed: ``RuntimeError``, ``torch.distributed...ChildFailedError``;
    ``""`` for a bare message quoted without one."""
    message: str
    """Everything after ``Type:`` on the message line and its continuation lines, joined by newlines."""
    frames: tuple[Frame, ...]
    user_frame: Frame | None
    """The innermost frame in the user's own code (not site-packages, the stdlib or ``<frozen ...>``)."""
    start_line: int
    end_line: int
    """The last line of the traceback, inclusive."""
    message_line: int
    """Where the ``Type: message`` line starts."""
    style: Style = Style.PYTHON
    stream: str = ""
    """The process the lines came from, by their prefix (``rank0``, ``default1:rank1``); ``""`` if none."""
    group: int = 0
    """Tracebacks printed as one report (a chain, an exception group's members) share a group number."""
    chain: Chain | None = None
    depth: int = 0
    """Nesting inside exception groups: 0 for a top-level traceback."""
    cell: int | None = None
    """For a notebook's saved error output: the index of the cell in the notebook's ``cells``."""
    bare: bool = False
    """Read from a message without a ``Traceback`` header (a log line, a quote): there were no frames
    to read, so nothing says where in the code it was raised."""

    @property
    def exception_line(self) -> str:
        """``Type: message``, whitespace runs made single spaces: a re-wrapped message reads whole."""
        text = ": ".join(part for part in (self.exception, self.message) if part)
        return " ".join(text.split())
