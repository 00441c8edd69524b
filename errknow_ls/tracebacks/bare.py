"""Error messages quoted without a traceback: a line copied from a log, a message pasted from an issue.

Without a ``Traceback (most recent call last):`` header there are no frames, so no source line; what
is left is the message. ``bare_messages`` reads text that holds no traceback and returns, as
tracebacks without frames (``Traceback.bare``), each message that starts on a line reading
``SomeError: message`` and each one a record recognises with no exception class in front (``CUDA out
of memory. Tried to allocate …``). A message runs to the next blank line, the next line that starts
another message, or the next log record, whichever comes first; lines are cleaned as in a traceback
(colour codes, rank and timestamp prefixes).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

import regex

from errknow_ls.kb import KnowledgeBase
from errknow_ls.tracebacks.lines import Line, clean_line
from errknow_ls.tracebacks.matching import MATCHED_CHARS
from errknow_ls.tracebacks.model import Traceback

_EXCEPTION_LINE = regex.compile(
    r"""^\s*(?P<type>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt))
    (?:\s*:\s*(?P<message>.*)|\s*$)""",
    regex.VERBOSE,
)
"""``Type: message`` or a lone ``Type``, the class named as Python prints it (dotted, ending in
Error, Exception, Warning, Exit or Interrupt: ``ERROR:`` from a logger is not one)."""
MAX_MESSAGE_LINES = 40
"""A message longer than this (a state_dict error naming hundreds of keys) keeps its first lines."""


def bare_messages(kb: KnowledgeBase, text: str, first_line: int = 0) -> list[Traceback]:
    """The messages in ``text`` (which holds no traceback), in the order they appear; ``first_line``
    is the index of its first line in the whole input."""
    lines = [clean_line(index, raw) for index, raw in enumerate(text.split("\n"), first_line)]
    found: list[Traceback] = []
    for block in _blocks(lines):
        starts = _starts(kb, block)
        for number, start in enumerate(starts):
            end = starts[number + 1] if number + 1 < len(starts) else len(block)
            message = _message(block[start:end])
            if message is not None:
                found.append(message)
    return found


def _blocks(lines: list[Line]) -> Iterable[list[Line]]:
    """Runs of lines between blank lines, log records and progress bars, none longer than what a
    record is matched in."""
    block: list[Line] = []
    size = 0
    for line in lines:
        ends = line.blank or line.progress or (line.record and not _EXCEPTION_LINE.match(line.text))
        if ends or size + len(line.text) > MATCHED_CHARS:
            if block:
                yield block
            block, size = [], 0
            if ends:
                continue
        block.append(line)
        size += len(line.text) + 1
    if block:
        yield block


def _starts(kb: KnowledgeBase, block: list[Line]) -> list[int]:
    """Where in ``block`` messages start: at each ``Type: message`` line, and where a record's
    pattern is found before the first of them."""
    starts = [at for at, line in enumerate(block) if _EXCEPTION_LINE.match(line.text)]
    before = starts[0] if starts else len(block)
    if before:
        joined, offsets = _joined(block[:before])
        found = [bisect.bisect_right(offsets, match.start) - 1 for match in kb.match(joined)]
        starts += [min(found)] if found else []
    return sorted(set(starts))


def _joined(block: list[Line]) -> tuple[str, list[int]]:
    """The lines' words joined by single spaces (as a traceback's exception line is matched), and
    where each line starts in that text."""
    offsets: list[int] = []
    parts: list[str] = []
    at = 0
    for line in block:
        offsets.append(at)
        part = " ".join(line.text.split())
        parts.append(part)
        at += len(part) + 1
    return " ".join(parts), offsets


def _message(lines: list[Line]) -> Traceback | None:
    first = lines[0]
    header = _EXCEPTION_LINE.match(first.text)
    exception = header.group("type") if header else ""
    head = (header.group("message") or "") if header else first.text.strip()
    body = [head, *(line.text for line in lines[1:MAX_MESSAGE_LINES])]
    message = "\n".join(body).strip()
    if not exception and not message:
        return None
    last = lines[min(len(lines), MAX_MESSAGE_LINES) - 1]
    return Traceback(
        exception=exception,
        message=message,
        frames=(),
        user_frame=None,
        start_line=first.index,
        end_line=last.index,
        message_line=first.index,
        stream=first.stream,
        bare=True,
    )
