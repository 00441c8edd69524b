"""Applying text edits given in code-point positions."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from errknow_ls.core.findings import Edit
from errknow_ls.core.positions import Position


class OverlappingEdits(ValueError):
    """Two edits touch the same text; a fix is applied whole or not at all."""


_LINE_END = re.compile(r"\r\n|\r|\n")


def _offsets(text: str) -> tuple[int, ...]:
    """Where each line starts; only \\n, \\r\\n and \\r end a line, as for Python and LSP."""
    if "\r" in text:
        starts = [0, *(match.end() for match in _LINE_END.finditer(text))]
    else:  # each line's length and its \n, summed in C; the last sum is one past the end
        starts = list(itertools.accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))
        starts.pop()
    if starts[-1] != len(text):
        starts.append(len(text))
    return tuple(starts)


def apply_edits(text: str, edits: Iterable[Edit], offsets: Offsets | None = None) -> str:
    """Apply ``edits`` (non-overlapping) to ``text``; raises ``OverlappingEdits`` otherwise.
    ``offsets``: ``text``'s, where the caller has them already."""
    where = offsets or Offsets(text)
    spans = sorted(
        ((where(e.span.start), where(e.span.end), e.content) for e in edits), key=lambda s: (s[0], s[1])
    )
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            raise OverlappingEdits
    for start, end, content in reversed(spans):
        text = text[:start] + content + text[end:]
    return text


class Offsets:
    """Positions of one text as offsets; lines end where Python's tokenizer ends them."""

    def __init__(self, text: str) -> None:
        self.length = len(text)
        self.starts = _offsets(text)

    def __call__(self, position: Position) -> int:
        if position.line >= len(self.starts) - 1:
            return self.length
        return min(self.starts[position.line] + position.character, self.starts[position.line + 1])

    def holds(self, position: Position) -> bool:
        """Whether ``position`` is in the text: on one of its lines, or just past its end."""
        lines = len(self.starts) - 1
        if position.line == lines:
            return position.character == 0
        if position.line > lines:
            return False
        return position.character <= self.starts[position.line + 1] - self.starts[position.line]


def shift(offset: int, text: str, edits: Sequence[Edit], offsets: Offsets | None = None) -> int | None:
    """Where ``offset`` of ``text`` lands once ``edits`` are applied (``None``: an edit replaced it).
    ``offsets``: ``text``'s, where the caller has them already."""
    offsets = offsets or Offsets(text)
    delta = 0
    for edit in edits:
        start, end = offsets(edit.span.start), offsets(edit.span.end)
        if end <= offset:
            delta += len(edit.content) - (end - start)
        elif start < offset < end:
            return None
    return offset + delta
