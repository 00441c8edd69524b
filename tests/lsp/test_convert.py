"""Code points <-> client units, in each negotiated encoding, on a line with CJK text and emoji; and
incremental changes applied where the client put them."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.protocol import default_converter

from errknow_ls.core import Position
from errknow_ls.lsp.checking import Analyzer
from errknow_ls.lsp.convert import (
    SCANNED_CHARS,
    Positions,
    apply_change,
    encode_diagnostics,
    line_start,
    split_lines,
)
from errknow_ls.lsp.snapshots import Snapshot
from tests.lsp.session import BUGGY

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


# ---------------------------------------------------------------- incremental changes


def _reference_change(text: str, where: types.Range, new_text: str, encoding: str) -> str:
    """The change applied through ``Positions`` (every line split out, as a small document is)."""
    positions = Positions(text, encoding)
    lines = split_lines(text)
    breaks = [m.group() for m in re.finditer(r"\r\n|\r|\n", text)]
    starts = [0]
    for line, end in zip(lines, breaks, strict=False):
        starts.append(starts[-1] + len(line) + len(end))

    def offset(position: types.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        return starts[position.line] + positions.from_client(position).character

    start = offset(where.start)
    return text[:start] + new_text + text[max(start, offset(where.end)) :]


PIECES = st.sampled_from(["a", "é", "中", "😋", " ", "\n", "\r", "\r\n", "\x0c", "\u2028", "x = 1"])


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(PIECES, max_size=40).map("".join),
    new_text=st.lists(PIECES, max_size=5).map("".join),
    numbers=st.lists(st.integers(min_value=0, max_value=12), min_size=4, max_size=4),
    encoding=st.sampled_from([UTF8, UTF16, UTF32]),
)
def test_an_incremental_change_lands_where_the_client_put_it(
    text: str, new_text: str, numbers: list[int], encoding: str
) -> None:
    """Lines as LSP counts them (a form feed or U+2028 is inside a line), columns in client units."""
    start, end = sorted([(numbers[0], numbers[1]), (numbers[2], numbers[3])])
    where = types.Range(start=types.Position(*start), end=types.Position(*end))
    assert apply_change(text, where, new_text, encoding) == _reference_change(text, where, new_text, encoding)


def test_line_starts_across_the_scanned_chunks() -> None:
    """Breaks counted a chunk at a time: a CRLF across a chunk's end is one break, not two."""
    lines = ["x" * (SCANNED_CHARS - 1), "y" * 10, "z" * (3 * SCANNED_CHARS), "", "last"]
    text = "\r\n".join(lines)
    expected = [0]
    for line in lines[:-1]:
        expected.append(expected[-1] + len(line) + 2)
    assert [line_start(text, n) for n in range(len(lines) + 2)] == [*expected, len(text), len(text)]


def test_diagnostics_encoded_in_a_worker_are_what_pygls_would_write() -> None:
    (result,) = Analyzer().run(Snapshot.of_text("file:///w/train.py", 3, BUGGY))
    assert result.diagnostics
    message = types.PublishDiagnosticsNotification(
        params=types.PublishDiagnosticsParams("file:///w/train.py", list(result.diagnostics), 3)
    )
    converter = default_converter()  # type: ignore[no-untyped-call]
    pygls_writes = json.loads(json.dumps(converter.unstructure(message)))
    assert json.loads(encode_diagnostics(result.diagnostics)) == pygls_writes["params"]["diagnostics"]
