"""A notebook's code cells as one program: joined for the checker, findings taken back to their cells.

The server (open notebooks) and ``check`` (``.ipynb`` files) both check cells this way. Cells are
joined top to bottom with a boundary comment between two cells; IPython line magics and shell
escapes (not Python) become a placeholder comment, so that the rest of the cell still parses. Both
are comments, which the checker never reads, and both let a fixed program be split back into cells
with the magics in place. An indented magic (``if IN_COLAB:`` over ``!pip install ...``, which
IPython runs as a statement) becomes ``pass`` with the placeholder comment, at its indentation, so
that a block whose body it is stays a block; a line that only looks like one (``% args`` continuing
an expression inside brackets) is Python, to IPython as here. IPython's other line syntax is
placeholders too: help (``?name``, ``name?``) and a magic's or shell escape's output assigned
(``lines = !ls``; the name is then unbound here, so what it holds is unknown).

A cell whose first line is indented is run by IPython with that indentation taken off every line
that starts with it (its ``leading_indent`` cleanup). It is joined so too, and its findings, related
places and fixes are taken back to the cell's own columns; a fixed cell gets the indentation back.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, replace

from errknow_ls.core import Edit, Finding, Fix, Position, Related, Span

MAGIC = re.compile(
    r"^\s*(?:%|!|\?)"  # a magic, a shell escape, help
    r"|^\s*[\w.]+\?\??\s*$"  # help after a name
    r"|^\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]"  # their output assigned
)
"""What IPython runs as other than Python when it starts a statement: a line magic, a shell escape
or help (``?name``) first on the line, help after a name (``name?``), a magic's or shell escape's
output assigned (``files = !ls``)."""
INDENT = re.compile(r"[ \t]+")
CELL_MAGIC = re.compile(r"%%(\w*)")
PYTHON_CELL_MAGICS = frozenset({"time", "capture"})
"""IPython's cell magics that run the cell's lines as Python in the notebook's own names."""
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
    """Each cell's magic lines, in order: what its placeholders stand for (without the indentation
    taken off an indented cell)."""
    indents: tuple[str, ...]
    """The indentation taken off each cell's lines (IPython's ``leading_indent``): ``""`` for most."""
    sources: tuple[str, ...]
    """Each cell's own text: what a cell no fix changed is given back as, byte for byte (its line
    breaks too), and the lines an indented cell's fixed lines get their indentation back from."""

    @classmethod
    def join(cls, cells: Sequence[str]) -> CellProgram:
        lines: list[str] = []
        starts: list[int] = []
        magics: list[tuple[str, ...]] = []
        indents: list[str] = []
        for index, cell in enumerate(cells):
            if index:
                lines.append(BOUNDARY)
            starts.append(len(lines))
            own_lines = LINE_BREAK.split(cell)
            indent = leading_indent(own_lines)
            indents.append(indent)
            cell_lines = [line.removeprefix(indent) for line in own_lines]
            if runs_no_python(cell_lines):  # `%%bash`, `%%writefile train.py`, `%%html`: none of it
                magics.append(tuple(cell_lines))
                lines.extend(MAGIC_PLACEHOLDER for _ in cell_lines)
                continue
            magic_lines = _magic_lines(cell_lines)
            magics.append(tuple(line for i, line in enumerate(cell_lines) if i in magic_lines))
            lines.extend(
                _placeholder(line) if i in magic_lines else line for i, line in enumerate(cell_lines)
            )
        return cls("\n".join(lines) + "\n", tuple(starts), tuple(magics), tuple(indents), tuple(cells))

    def cell_at(self, line: int) -> int:
        """The cell that holds ``line`` of the joined text (a boundary line: the cell before it)."""
        index = 0
        for i, start in enumerate(self.starts):
            if start <= line:
                index = i
        return index

    def locate(self, span: Span) -> tuple[int, Span]:
        """The cell ``span`` starts in, and the span in that cell's own lines and columns."""
        index = self.cell_at(span.start.line)
        return index, self._in_cell(index, span)

    def _in_cell(self, index: int, span: Span) -> Span:
        """``span`` (in joined lines, inside cell ``index``) in that cell's own lines and columns."""
        shifted = _shift(span, self.starts[index])
        return Span(self._column(index, shifted.start), self._column(index, shifted.end))

    def _indented(self, index: int, line: int) -> bool:
        """Whether ``line`` of the cell (its own numbering) lost the cell's indentation when joined."""
        indent = self.indents[index]
        own = LINE_BREAK.split(self.sources[index]) if indent else ()
        return 0 <= line < len(own) and own[line].startswith(indent)

    def _column(self, index: int, position: Position) -> Position:
        if not self._indented(index, position.line):
            return position
        return Position(position.line, position.character + len(self.indents[index]))

    def _edit_in_cell(self, index: int, edit: Edit) -> Edit:
        """``edit`` (in joined lines) in the cell's own lines: an indented cell's columns move by its
        indentation, and every line the edit starts gets it too."""
        span = self._in_cell(index, edit.span)
        indent = self.indents[index]
        if not indent:
            return Edit(span, edit.content)
        content = edit.content.replace("\n", "\n" + indent)  # each line it starts is the cell's
        if content.endswith("\n" + indent) and not self._indented(index, span.end.line):
            content = content.removesuffix(indent)  # what follows it on that line was never indented
        if edit.content and not span.start.character and not self._indented(index, span.start.line):
            content = indent + content  # written at the start of a line that kept its text (blank)
        return Edit(span, content)

    def _inside(self, index: int, span: Span) -> bool:
        start = self.starts[index]
        end = self._boundary_after(index)
        return span.start.line >= start and (end is None or span.end.line < end)

    def _boundary_after(self, index: int) -> int | None:
        """The line of the boundary after the cell (None after the last cell)."""
        return self.starts[index + 1] - 1 if index + 1 < len(self.starts) else None

    def _edit_inside(self, index: int, edit: Edit) -> Edit | None:
        """``edit`` made to stay in the cell, or None where it reaches another cell. An edit that
        ends where the boundary after the cell starts (the removal of the cell's last line, with
        its line break) is the same edit up to the end of the cell's last line (the break after it
        is the boundary's own); one that then leaves a line cut short is not."""
        if self._inside(index, edit.span):
            return edit
        boundary = self._boundary_after(index)
        end, start = edit.span.end, edit.span.start
        if boundary is None or (end.line, end.character) != (boundary, 0) or start.line < self.starts[index]:
            return None
        lines = self.text.split("\n")
        last = Position(boundary - 1, len(lines[boundary - 1]))
        if edit.content.endswith("\n"):
            return Edit(Span(start, last), edit.content.removesuffix("\n"))
        if edit.content or start.character:
            return None
        if start.line > self.starts[index]:  # the line break before the removed lines goes with them
            start = Position(start.line - 1, len(lines[start.line - 1]))
        return Edit(Span(start, last), "")

    def to_cell(self, finding: Finding) -> tuple[int, Finding]:
        """The finding's cell, and the finding in that cell's lines; fixes that reach into another
        cell, and related places in another cell, are left out (``related_across`` has those)."""
        index, span = self.locate(finding.span)
        fixes = tuple(
            replace(fix, edits=tuple(self._edit_in_cell(index, e) for e in edits))
            for fix, edits in self._fixes_inside(index, finding)
        )
        related = tuple(
            Related(self._in_cell(index, r.span), r.message)
            for r in finding.related
            if self._inside(index, r.span)
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
        fixes = tuple(replace(fix, edits=edits) for fix, edits in self._fixes_inside(index, finding))
        return finding if fixes == finding.fixes else replace(finding, fixes=fixes)

    def _fixes_inside(self, index: int, finding: Finding) -> list[tuple[Fix, tuple[Edit, ...]]]:
        """The finding's fixes whose edits all stay in the cell, each with those edits."""
        kept = []
        for fix in finding.fixes:
            edits = [self._edit_inside(index, e) for e in fix.edits]
            if all(e is not None for e in edits):
                kept.append((fix, tuple(e for e in edits if e is not None)))
        return kept

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
        for index, (lines, magics) in enumerate(zip(cells, self.magics, strict=True)):
            placeholders = [i for i, line in enumerate(lines) if _is_placeholder(line)]
            if len(placeholders) != len(magics):
                return None
            for i, magic in zip(placeholders, magics, strict=True):
                lines[i] = magic
            source, indent = self.sources[index], self.indents[index]
            own = LINE_BREAK.split(source)
            now = _reindented(lines, indent, own) if indent else lines
            if now == own:
                restored.append(source)  # as it was, its line breaks too
            else:
                line_break = LINE_BREAK.search(source)
                restored.append((line_break.group(0) if line_break else "\n").join(now))
        return restored


def runs_no_python(cell_lines: list[str]) -> bool:
    """Whether the cell is a cell magic that runs none of its lines as Python in the notebook:
    all but ``%%time`` and ``%%capture``, which run the cell as it is (``%%writefile`` writes it to
    a file that another process may run with names of its own; ``%%timeit`` runs it in a scope
    of its own; ``%%bash``, ``%%html`` and the like are no Python)."""
    match = CELL_MAGIC.match(_first_written(cell_lines))
    return match is not None and match.group(1) not in PYTHON_CELL_MAGICS


def leading_indent(lines: list[str]) -> str:
    """The indentation IPython takes off a cell's lines: its first line's, blank lines aside."""
    match = INDENT.match(_first_written(lines))
    return match.group(0) if match else ""


def _first_written(lines: list[str]) -> str:
    """A cell's first line that is not blank (IPython drops the blank ones before it), or ``""``."""
    return next((line for line in lines if line.strip()), "")


def _reindented(lines: list[str], indent: str, originals: list[str]) -> list[str]:
    """An indented cell's lines as the cell holds them: lines as joined are the cell's own lines
    again, and a line a fix wrote gets the cell's indentation (a blank one stays blank)."""
    joined = [line.removeprefix(indent) for line in originals]
    kept: list[str] = []
    matcher = difflib.SequenceMatcher(None, joined, lines, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            kept += originals[old_start:old_end]
        else:
            kept += [indent + line if line.strip() else line for line in lines[new_start:new_end]]
    return kept


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
