"""Positions in a text, in code points, 0-based; conversion to client units lives in ``lsp``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True, slots=True)
class Position:
    """A 0-based line and a 0-based column counted in Unicode code points."""

    line: int
    character: int


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range ``[start, end)`` of positions."""

    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, col: int, end_line: int, end_col: int) -> Span:
        return cls(Position(line, col), Position(end_line, end_col))

    def contains_line(self, line: int) -> bool:
        return self.start.line <= line <= self.end.line

    def overlaps(self, other: Span) -> bool:
        return not (other.end < self.start or self.end < other.start)


def utf8_col_to_chars(line_text: str, byte_col: int) -> int:
    """Convert a UTF-8 byte column (as ``ast`` gives) into a code-point column."""
    if line_text.isascii():
        return byte_col
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))
