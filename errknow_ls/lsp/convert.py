"""The one place where our code-point positions meet the client's units, and findings meet LSP types.

The core counts columns in code points. The client counts them in the encoding negotiated at
``initialize``: UTF-8 bytes (Neovim), UTF-16 units (VS Code, the default) or code points (Emacs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

from lsprotocol import types
from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer, ValidationError
from pygls.protocol import default_converter

from errknow_ls.core import Finding, Fix, Position, Related, Severity, Span
from errknow_ls.core.codec import decode_fix, encode_fix

SOURCE = "errknow"
SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}
SETTING_SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}
_CONVERTER = default_converter()  # type: ignore[no-untyped-call]
"""pygls' own: what ``encode_diagnostics`` writes is what pygls would write."""
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""Line ends as LSP (and Python) count them: not form feeds or U+2028."""


def split_lines(text: str) -> list[str]:
    return _LINE_BREAK.split(text)


def _units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf32 or text.isascii():
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _char_units(char: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf32:
        return 1
    if encoding == types.PositionEncodingKind.Utf8:
        return len(char.encode("utf-8", "surrogatepass"))
    return 2 if ord(char) > 0xFFFF else 1


def _column_from_client(line: str, character: int, encoding: str) -> int:
    """The code-point column of a column in the client's units; past the end of the line, its end."""
    if encoding == types.PositionEncodingKind.Utf32 or line.isascii():
        return min(character, len(line))
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += _char_units(char, encoding)
    return len(line)


SCANNED_CHARS = 1 << 16
"""How much of a text ``line_start`` counts line breaks in at a time (in C), before it walks them."""


def line_start(text: str, line: int, start: int = 0) -> int:
    """Where ``line`` (0-based, line breaks as LSP counts them) starts in ``text``, counting from
    ``start`` (the start of a line); past the last line, the end of the text. In time proportional
    to the distance, most of it in C: a huge document is never split into its lines."""
    remaining = line
    while remaining > 0:
        end = min(len(text), start + SCANNED_CHARS)
        if end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
            end += 1  # one break, never counted twice
        breaks = text.count("\n", start, end)
        if text.find("\r", start, end) >= 0:  # rare: a search as fast as the count, not two counts
            breaks += text.count("\r", start, end) - text.count("\r\n", start, end)
        if breaks >= remaining:
            for found in _LINE_BREAK.finditer(text, start, end):
                remaining -= 1
                if remaining == 0:
                    return found.end()
        if end == len(text):
            return len(text)
        remaining -= breaks
        start = end
    return start


def _offset_in_line(text: str, start: int, character: int, encoding: str) -> int:
    """The offset of a column in client units on the line starting at ``start``."""
    found = _LINE_BREAK.search(text, start)
    end = found.start() if found else len(text)
    return start + _column_from_client(text[start:end], character, encoding)


def offset_of(text: str, position: types.Position, encoding: str) -> int:
    """The code-point offset in ``text`` of a client position (past the end of a line: its end)."""
    return _offset_in_line(text, line_start(text, position.line), position.character, encoding)


def apply_change(text: str, where: types.Range, new_text: str, encoding: str) -> str:
    """``text`` with the client's range replaced by ``new_text`` (an incremental change); the end's
    line is counted on from the start's."""
    first = line_start(text, where.start.line)
    start = _offset_in_line(text, first, where.start.character, encoding)
    lines = where.end.line - where.start.line
    if lines < 0:  # a range that ends before it starts: an insertion
        end = start
    else:
        last = line_start(text, lines, first)
        end = max(start, _offset_in_line(text, last, where.end.character, encoding))
    return "".join((text[:start], new_text, text[end:]))


class Positions:
    """Code points <-> client units for one text, in the negotiated position encoding."""

    def __init__(self, text: str, encoding: str) -> None:
        self.encoding = encoding
        self._text = text
        self._ascii = text.isascii()
        self._lines: list[str] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _LINE_BREAK.split(self._text)
        return self._lines

    def line(self, number: int) -> str:
        lines = self.lines
        return lines[number] if 0 <= number < len(lines) else ""

    def to_client(self, position: Position) -> types.Position:
        if self._ascii or self.encoding == types.PositionEncodingKind.Utf32:
            return types.Position(position.line, position.character)
        prefix = self.line(position.line)[: position.character]
        return types.Position(position.line, _units(prefix, self.encoding))

    def from_client(self, position: types.Position) -> Position:
        """The code-point position of a client position; past the end of a line means its end."""
        text = self.line(position.line)
        if self._ascii:
            return Position(position.line, min(position.character, len(text)))
        return Position(position.line, _column_from_client(text, position.character, self.encoding))

    def to_range(self, span: Span) -> types.Range:
        return types.Range(start=self.to_client(span.start), end=self.to_client(span.end))

    def from_range(self, client: types.Range) -> Span:
        return Span(self.from_client(client.start), self.from_client(client.end))

    def end_of_line(self, line: int) -> types.Position:
        return self.to_client(Position(line, len(self.line(line))))


def _related(uri: str, positions: Positions, related: Related) -> types.DiagnosticRelatedInformation | None:
    """A related place in the client's units: in this document, or in another file of the project
    (read from disk for its units; left out when it cannot be read)."""
    if related.path is not None:
        try:
            text = Path(related.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        uri, positions = Path(related.path).as_uri(), Positions(text, positions.encoding)
    location = types.Location(uri=uri, range=positions.to_range(related.span))
    return types.DiagnosticRelatedInformation(location=location, message=related.message)


def _fix(value: object) -> Fix:
    return value if isinstance(value, Fix) else decode_fix(value)


FixField = Annotated[Fix, BeforeValidator(_fix), PlainSerializer(encode_fix, return_type=dict)]
"""A fix in ``core.codec``'s JSON form."""


class DiagnosticData(BaseModel):
    """What rides in ``Diagnostic.data``: enough for a code action never to re-run the analysis."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    uri: str
    version: int | None
    code: str
    record: str
    fixes: tuple[FixField, ...]
    line: int
    """The line the finding starts on, for "disable for this line"."""


def parse_data(raw: object) -> DiagnosticData | None:
    try:
        return DiagnosticData.model_validate(raw)
    except ValidationError:
        return None


def to_text_edits(positions: Positions, fix: Fix) -> list[types.TextEdit]:
    return [types.TextEdit(range=positions.to_range(e.span), new_text=e.content) for e in fix.edits]


def limit_diagnostic(positions: Positions, line: int, message: str) -> types.Diagnostic:
    """Where a limit stopped the checker (a budget, a depth): an information diagnostic on that line
    (a function's ``def``, a statement), as pyright marks code too complex to analyze. It has no
    code: it is no rule's finding, and nothing can fix or silence it."""
    text = positions.line(line)
    span = Span(Position(line, len(text) - len(text.lstrip())), Position(line, len(text)))
    return types.Diagnostic(
        range=positions.to_range(span),
        message=message,
        severity=types.DiagnosticSeverity.Information,
        source=SOURCE,
    )


def to_diagnostic(
    uri: str,
    version: int | None,
    positions: Positions,
    finding: Finding,
    *,
    doc_url: str | None,
    severity: types.DiagnosticSeverity | None = None,
    related: list[types.DiagnosticRelatedInformation] | None = None,
) -> types.Diagnostic:
    """``related`` defaults to the finding's own related places: in the same document, or in the
    project's module named by its path."""
    if related is None:
        related = [item for r in finding.related if (item := _related(uri, positions, r)) is not None]
    data = DiagnosticData(
        uri=uri,
        version=version,
        code=finding.code,
        record=finding.record_id,
        fixes=finding.fixes,
        line=finding.span.start.line,
    )
    return types.Diagnostic(
        range=positions.to_range(finding.span),
        message=finding.message,
        severity=severity or SEVERITIES[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=doc_url) if doc_url else None,
        source=SOURCE,
        related_information=related or None,
        data=data.model_dump(mode="json"),
    )


def encode_diagnostics(diagnostics: Sequence[types.Diagnostic]) -> str:
    """The JSON of a list of diagnostics, as pygls writes it: made where they are made, in a worker,
    so that publishing thousands of them never holds up the event loop."""
    return json.dumps(_CONVERTER.unstructure(list(diagnostics), list[types.Diagnostic]))
