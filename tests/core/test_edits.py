"""Positions of a text as offsets: lines end only at \\n, \\r\\n and \\r, as Python's tokenizer and LSP
end them, whichever of them the text uses."""

from __future__ import annotations

import pytest

from errknow_ls.core.edits import Offsets
from errknow_ls.core.positions import Position

TEXTS = {
    "empty": "",
    "one line, no end": "x = 1",
    "\\n": "a\nbb\n\nccc\n",
    "\\n, the last line open": "a\nbb\nccc",
    "\\r\\n": "a\r\nbb\r\n\r\nccc",
    "\\r": "a\rbb\r",
    "mixed": "a\r\nb\nc\rd",
    "other breaks are inside a line": "a\x0bb\x0cc\u2028d\x1ce\nf",
}


def line_starts(text: str) -> list[int]:
    """Each line's first offset, by walking the text one character at a time."""
    starts = [0]
    index = 0
    while index < len(text):
        if text[index] == "\r" and text[index + 1 : index + 2] == "\n":
            index += 1
        if text[index] in "\r\n":
            starts.append(index + 1)
        index += 1
    return starts


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_each_position_is_the_offset_of_its_line_start_and_column(name: str) -> None:
    text = TEXTS[name]
    offsets = Offsets(text)
    starts = line_starts(text)
    for line, start in enumerate(starts):
        end = starts[line + 1] if line + 1 < len(starts) else len(text)
        for column in range(end - start + 2):
            assert offsets(Position(line, column)) == min(start + column, end), (line, column)
        assert offsets.holds(Position(line, end - start))
    assert offsets(Position(len(starts) + 3, 0)) == len(text), "a line past the end is the end"
