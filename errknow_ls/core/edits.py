"""Applying text edits given in code-point positions."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from errknow_ls.core.findings import Edit
from errknow_ls.core.positions import Position


class OverlappingEdits(ValueError):
    """Two edits touch the same text; a fix is applied whole or not at all."""


_LINE_END = re.compile(r"\r\n|\r|\n")


def _offsets(text: str) -> list[int]:
    """Where each line starts; only \\n, \\r\\n and \\r end a line, as for Python and LSP."""
    starts = [0] + [m.end() for m in _LINE_END.finditer(text)]
    if starts[-1] != len(text):
        starts.append(len(text))
    return starts


def _offset(starts: list[int], text: str, position: Position) -> int:
    if position.line >= len(starts) - 1:
        return len(text)
    line_end = starts[position.line + 1]
    return min(starts[position.line] + position.character, line_end)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply ``edits`` (non-overlapping) to ``text``; raises ``OverlappingEdits`` otherwise."""
    starts = _offsets(text)
    spans = sorted(
        ((_offset(starts, text, e.span.start), _offset(starts, text, e.span.end), e.content) for e in edits),
        key=lambda s: (s[0], s[1]),
    )
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            raise OverlappingEdits
    for start, end, content in reversed(spans):
        text = text[:start] + content + text[end:]
    return text
