"""A notebook's code cells as one program: joined for the checker, findings taken back to their cells.

The server (open notebooks) and ``check`` (``.ipynb`` files) both check cells this way. Cells are
joined top to bottom with a boundary comment between two cells; IPython line magics and shell
escapes (not Python) become a placeholder comment, so that the rest of the cell still parses. Both
are comments, which the checker never reads, and both let a fixed program be split back into cells
with the magics in place. An indented magic (``if IN_COLAB:`` over ``!pip install ...``, which
IPython runs as a statement) becomes ``pass`` with the placeholder comment, at its indentation, so
that a block whose body it is stays a block; a line that only looks like one (``% args`` continuing
an expression inside brackets) is Python, to IPython as here.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, replace

from errknow_ls.core import Edit, Finding, Fix, Position, Related, Span

MAGIC = re.compile(r"^\s*(?:%|!)")
LINE_BREAK = re.compile(r"\r\n|\r|\n")
BOUNDARY = "# errknow-cell-boundary"
MAGIC_PLACEHOLDER = "# errknow-ipython-magic"
MAGIC_STATEMENT = f"pass  {MAGIC_PLACEHOLDER}"
"""The placeholder of an indented magic in a cell that needs a statement there (after its indentation)."""
LINE_MENTION = re.compile(r"`[^`]*`|\bline (\d+)\b|第 (\d+) 行")
"""``line 12`` (``第 12 行`` in Chinese) in a finding's words (code quoted in backticks is passed over)."""


@dataclass(frozen=True, slots=True)
class CellProgram:
    text: str
    """The cells joined, a boundary line between two, each magic line a placeholder."""
    starts: tuple[int, ...]
    """The line of ``text`` where each cell begins."""
    magics: tuple[tuple[str, ...], ...]
    """Each cell's magic lines, in order: what its placeholders stand for."""

    @classmethod
    def join(cls, cells: Sequence[str]) -> CellProgram:
        lines: list[str] = []
        starts: list[int] = []
        magics: list[tuple[str, ...]] = []
        for index, cell in enumerate(cells):
            if index:
                lines.append(BOUNDARY)
            starts.append(len(lines))
            cell_lines = LINE_BREAK.split(cell)
            magic_lines = _magic_lines(cell_lines)
            magics.append(tuple(line for i, line in enumerate(cell_lines) if i in magic_lines))
            lines.extend(
                _placeholder(line) if i in magic_lines else line for i, line in enumerate(cell_lines)
            )
        return cls("\n".join(lines) + "\n", tuple(starts), tuple(magics))

    def cell_at(self, line: int) -> int:
        """The cell that holds ``line`` of the joined text (a boundary line: the cell before it)."""
        index = 0
        for i, start in enumerate(self.starts):
            if start <= line:
                index = i
        return index

    def locate(self, span: Span) -> tuple[int, Span]:
        """The cell ``span`` starts in, and the span in that cell's own lines."""
        index = self.cell_at(span.start.line)
        return index, _shift(span, self.starts[index])

    def _inside(self, index: int, span: Span) -> bool:
        start = self.starts[index]
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else None  # its boundary
        return span.start.line >= start and (end is None or span.end.line < end)

    def to_cell(self, finding: Finding) -> tuple[int, Finding]:
        """The finding's cell, and the finding in that cell's lines; fixes that reach into another
        cell, and related places in another cell, are left out (``related_across`` has those)."""
        index, span = self.locate(finding.span)
        start = self.starts[index]
        fixes = tuple(
            Fix(
                fix.title,
                fix.applicability,
                tuple(Edit(_shift(e.span, start), e.content) for e in fix.edits),
                fix.workaround,
            )
            for fix in finding.fixes
            if all(self._inside(index, e.span) for e in fix.edits)
        )
        related = tuple(
            Related(_shift(r.span, start), r.message) for r in finding.related if self._inside(index, r.span)
        )
        return index, replace(finding, span=span, fixes=fixes, related=related)

    def name_cells(self, finding: Finding) -> Finding:
        """The finding with each ``line N`` of the joined program in its message and fix titles
        said as ``cell K, line M`` (code cells counted from 1, as ``check`` prints them)."""

        def said(match: re.Match[str]) -> str:
            number = match.group(1) or match.group(2)
            if number is None:
                return match.group(0)
            line = int(number) - 1
            index = self.cell_at(line)
            if match.group(1) is None:
                return f"第 {index + 1} 个单元格第 {line - self.starts[index] + 1} 行"
            return f"cell {index + 1}, line {line - self.starts[index] + 1}"

        fixes = tuple(replace(fix, title=LINE_MENTION.sub(said, fix.title)) for fix in finding.fixes)
        return replace(finding, message=LINE_MENTION.sub(said, finding.message), fixes=fixes)

    def within_cells(self, finding: Finding) -> Finding:
        """The finding in joined lines, with only the fixes that stay inside its cell (a fix applied
        to the joined text then splits back into cells)."""
        index = self.cell_at(finding.span.start.line)
        fixes = tuple(fix for fix in finding.fixes if all(self._inside(index, e.span) for e in fix.edits))
        return finding if fixes == finding.fixes else replace(finding, fixes=fixes)

    def split(self, text: str) -> list[str] | None:
        """The cells of ``text`` (this program, fixed), magics restored; ``None`` when its boundaries
        or placeholders are not as joined (nothing of it can be written back then)."""
        cells: list[list[str]] = [[]]
        for line in LINE_BREAK.split(text.removesuffix("\n")):
            if line == BOUNDARY:
                cells.append([])
            else:
                cells[-1].append(line)
        if len(cells) != len(self.starts):
            return None
        restored = []
        for lines, magics in zip(cells, self.magics, strict=True):
            placeholders = [i for i, line in enumerate(lines) if _is_placeholder(line)]
            if len(placeholders) != len(magics):
                return None
            for i, magic in zip(placeholders, magics, strict=True):
                lines[i] = magic
            restored.append("\n".join(lines))
        return restored


def _magic_lines(cell_lines: list[str]) -> set[int]:
    """The (0-based) lines IPython runs as a magic or a shell escape: ``%`` or ``!`` first on a
    line that starts a statement. One that continues an expression (``% args`` inside brackets, or
    after a backslash) or a string is Python's; where the cell does not tokenize, every line that
    starts so counts."""
    candidates = {i for i, line in enumerate(cell_lines) if MAGIC.match(line)}
    return candidates - _continued_lines(cell_lines, candidates) if candidates else candidates


def _continued_lines(lines: list[str], candidates: set[int]) -> set[int]:
    """The lines that begin inside brackets, a string spanning lines, or after a backslash; none
    where the text does not tokenize (a shell escape's ``!`` read as ``%``, which keeps columns)."""
    readable = [line.replace("!", "%", 1) if i in candidates else line for i, line in enumerate(lines)]
    continued: set[int] = set()
    depth, row = 0, 0
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(readable) + "\n").readline):
            first, last = token.start[0] - 1, token.end[0] - 1
            while row < first:
                row += 1
                if depth or lines[row - 1].endswith("\\"):
                    continued.add(row)
            continued.update(range(first + 1, last + 1))  # a string's later lines
            row = max(row, last)
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth = max(depth - 1, 0)
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError):
        return set()
    return continued


def _placeholder(line: str) -> str:
    """A magic's line in the joined text: a comment, or for an indented one (the body of a block,
    as ``if IN_COLAB:`` over ``!pip install ...``) a ``pass`` with that comment, at its
    indentation, so that the block stays a block."""
    indentation = line[: len(line) - len(line.lstrip())]
    return indentation + MAGIC_STATEMENT if indentation else MAGIC_PLACEHOLDER


def _is_placeholder(line: str) -> bool:
    return line == MAGIC_PLACEHOLDER or line.lstrip(" \t") == MAGIC_STATEMENT


def _shift(span: Span, lines: int) -> Span:
    return Span(
        Position(span.start.line - lines, span.start.character),
        Position(span.end.line - lines, span.end.character),
    )
