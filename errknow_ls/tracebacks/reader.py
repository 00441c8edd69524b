"""Cleaned lines in, tracebacks out: one reader per process stream, chains and exception groups.

Lines of several processes interleave (torchrun's ``[rank0]:`` / ``[rank1]:``); each stream keeps its
own traceback in progress. Inside a stream, an exception group's members come with ``|`` bars, one
level of bars per level of nesting, and separators (``+-+---- 1 ----``) between them.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from errknow_ls.tracebacks.formats import Step, TracebackParser, chain_marker, start_parser
from errknow_ls.tracebacks.lines import HEADER_TEXT, Line
from errknow_ls.tracebacks.model import Chain, Traceback
from errknow_ls.tracebacks.userframe import user_frame

CHAIN_WINDOW = 8
"""Lines after a traceback within which a chain marker and the next header still join it."""
MAX_STREAMS = 256

_GROUP_BAR = re.compile(r"^(?P<indent>(?: {2})+)(?P<bar>[|+])(?P<rest>.*)$")
_GROUP_HEADER = " Exception Group Traceback"


@dataclass(slots=True)
class _Marker:
    chain: Chain
    depth: int
    line: int


@dataclass(slots=True)
class _Stream:
    parser: TracebackParser | None = None
    group: int | None = None
    """The group of the traceback read last, which members of an exception group join."""
    last_end: int = -1
    marker: _Marker | None = None
    group_depth: int = 0
    """How deep the exception group being printed nests: ``|`` bars deeper than this are text."""

    def quiet_since(self, line: int) -> bool:
        return self.parser is None and (self.last_end < 0 or line - self.last_end > CHAIN_WINDOW)


@dataclass(frozen=True, slots=True)
class _Placed:
    """A line with its exception-group bars taken off."""

    line: Line
    depth: int = 0
    separator: bool = False


class TracebackReader:
    """Feed it cleaned lines in order; it returns each traceback once its last line has been seen."""

    def __init__(self) -> None:
        self._streams: dict[str, _Stream] = {}
        self._groups = 0

    def busy(self, line: int) -> bool:
        """Whether lines from ``line`` on must be read one by one (a traceback may be in progress)."""
        if self._streams:
            for key in [key for key, stream in self._streams.items() if stream.quiet_since(line)]:
                del self._streams[key]
        return bool(self._streams)

    def feed(self, line: Line) -> list[Traceback]:
        stream = self._streams.get(line.stream)
        if stream is None:
            if HEADER_TEXT not in line.text:
                return []
            if len(self._streams) >= MAX_STREAMS:
                self.busy(line.index)
            stream = self._streams[line.stream] = _Stream()
        placed = _place(stream, line)
        found: list[Traceback] = []
        parser = stream.parser
        if parser is not None:
            if placed.depth != parser.depth or placed.separator:
                step = Step.ENDED
            else:
                step = parser.feed(placed.line)
            if step is Step.TAKEN:
                return found
            stream.parser = None
            if step is Step.ENDED:
                found.extend(self._finish(stream, line.stream, parser))
        if not placed.separator:
            self._idle(stream, placed)
        return found

    def close(self) -> list[Traceback]:
        """The end of the input: every traceback still in progress ends here."""
        found: list[Traceback] = []
        for key, stream in self._streams.items():
            if stream.parser is not None:
                found.extend(self._finish(stream, key, stream.parser))
                stream.parser = None
        self._streams.clear()
        return sorted(found, key=lambda tb: tb.start_line)

    def _idle(self, stream: _Stream, placed: _Placed) -> None:
        line = placed.line
        chain = chain_marker(line.text)
        if chain is not None:
            if stream.last_end >= 0 and line.index - stream.last_end <= CHAIN_WINDOW:
                stream.marker = _Marker(chain, placed.depth, line.index)
            return
        parser = start_parser(line, placed.depth)
        if parser is None:
            return
        marker = stream.marker
        if marker is not None and (
            line.index - marker.line > CHAIN_WINDOW or marker.depth not in (placed.depth, placed.depth - 1)
        ):
            marker = None
        stream.marker = None
        group = stream.group
        if group is None or (marker is None and placed.depth < 2):
            # A new report; a member of an exception group (depth 2 on) or a chained one joins the last.
            group = stream.group = self._groups
            self._groups += 1
            stream.group_depth = placed.depth
        parser.chain = marker.chain if marker is not None else None
        parser.group = group
        stream.parser = parser

    def _finish(self, stream: _Stream, key: str, parser: TracebackParser) -> list[Traceback]:
        parsed = parser.result()
        if parsed is None:
            return []
        stream.last_end = parsed.end_line
        traceback = Traceback(
            exception=parsed.exception,
            message=parsed.message,
            frames=parsed.frames,
            user_frame=user_frame(parsed.frames),
            start_line=parsed.start_line,
            end_line=parsed.end_line,
            message_line=parsed.message_line,
            style=parsed.style,
            stream=key,
            group=parser.group,
            chain=parser.chain,
            depth=parser.depth,
        )
        return [traceback]


def _place(stream: _Stream, line: Line) -> _Placed:
    """Take exception-group bars off ``line``: ``  | text`` is ``text`` at depth 1."""
    text = line.text
    if not text.startswith("  "):
        return _Placed(line)
    found = _GROUP_BAR.match(text)
    if found is None:
        return _Placed(line)
    column = len(found.group("indent"))
    depth = column // 2
    rest = found.group("rest")
    if found.group("bar") == "+":
        if rest.startswith(_GROUP_HEADER):
            stream.group_depth = max(stream.group_depth, depth)
            return _Placed(dataclasses.replace(line, text=rest[1:]), depth)
        if rest.startswith("-"):
            # "+-+---- 1 ----" ends what was printed at this depth and opens the next one.
            marks = "+" + rest[: len(rest) - len(rest.lstrip("+-"))]
            stream.group_depth = max(stream.group_depth, (column + marks.rindex("+")) // 2)
            return _Placed(line, depth, separator=True)
        return _Placed(line)
    if depth > stream.group_depth:
        return _Placed(line)
    return _Placed(dataclasses.replace(line, text=rest.removeprefix(" ")), depth)
