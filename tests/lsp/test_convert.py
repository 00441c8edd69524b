"""Code points <-> client units, in each negotiated encoding, on a line with CJK text and emoji."""

from __future__ import annotations

import pytest
from lsprotocol import types

from errknow_ls.core import Position
from errknow_ls.lsp.convert import Positions

LINE = 'x = "é中😋"; y'
TEXT = f"import torch\r\n{LINE}\nlast"
UTF8, UTF16, UTF32 = (
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf32,
)
# code points of `;` (index 9) in each encoding: é is 2 bytes, 中 3 bytes, 😋 4 bytes / 2 UTF-16 units
SEMICOLON: dict[str, int] = {UTF8: 15, UTF16: 10, UTF32: 9}


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_there_and_back(encoding: str) -> None:
    positions = Positions(TEXT, encoding)
    client = positions.to_client(Position(1, LINE.index(";")))
    assert client == types.Position(1, SEMICOLON[encoding])
    assert positions.from_client(client) == Position(1, LINE.index(";"))
    assert positions.end_of_line(0) == types.Position(0, len("import torch"))  # CRLF is no column


@pytest.mark.parametrize(("encoding", "inside"), [(UTF8, 12), (UTF16, 8)])
def test_a_column_inside_a_character_means_the_next_one(encoding: str, inside: int) -> None:
    """The middle of 😋's four bytes (or two UTF-16 units) is not a character boundary."""
    assert Positions(TEXT, encoding).from_client(types.Position(1, inside)) == Position(1, LINE.index('"', 5))


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_past_the_end_of_a_line_is_its_end(encoding: str) -> None:
    positions = Positions(TEXT, encoding)
    assert positions.from_client(types.Position(1, 999)) == Position(1, len(LINE))
    assert positions.from_client(types.Position(9, 3)) == Position(9, 0)
