"""Text edits that fixes are made of, computed from the AST and the source text."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence

from errknow_ls.analysis.source import SourceText
from errknow_ls.core import Edit, Position, Span


def insert_keyword(source: SourceText, call: ast.Call, name: str, value: str) -> Edit | None:
    """``f(a)`` -> ``f(a, name=value)``; replaces the value when the keyword is already there."""
    for kw in call.keywords:
        if kw.arg == name:
            return Edit(source.span(kw.value), value)
    if call.end_lineno is None or call.end_col_offset is None:
        return None
    close = source.position(call.end_lineno, call.end_col_offset)
    if close.character == 0:
        return None
    at = Position(close.line, close.character - 1)
    before = _text_before(source, call, at)
    separator = "" if before.endswith(("(", ",")) or not (call.args or call.keywords) else ", "
    if before.endswith(","):
        separator = " "
    return Edit(Span(at, at), f"{separator}{name}={value}")


def _text_before(source: SourceText, call: ast.Call, at: Position) -> str:
    start = source.position(call.lineno, call.col_offset)
    lines = source.lines[start.line : at.line + 1]
    if not lines:
        return ""
    lines[-1] = lines[-1][: at.character]
    if len(lines) == 1:
        lines[0] = lines[0][start.character :]
    return "\n".join(lines).rstrip()


def remove_keyword(source: SourceText, call: ast.Call, name: str) -> Edit | None:
    """Remove ``name=...`` from a call together with the comma that joins it to its neighbour."""
    arguments: list[ast.AST] = [*call.args, *call.keywords]
    arguments.sort(key=lambda a: (a.lineno, a.col_offset))  # type: ignore[attr-defined]
    target = next((kw for kw in call.keywords if kw.arg == name), None)
    if target is None:
        return None
    index = arguments.index(target)
    span = source.span(target)
    if index > 0:
        span = Span(source.span(arguments[index - 1]).end, span.end)
    elif len(arguments) > 1:
        span = Span(span.start, source.span(arguments[1]).start)
    return Edit(span, "")


def insert_lines_before(source: SourceText, stmt: ast.stmt, lines: Sequence[str]) -> Edit | None:
    """Insert whole lines above ``stmt``, at its indentation."""
    if not source.starts_line(stmt):
        return None
    indent = source.indent_of(stmt.lineno)
    text = "".join(f"{indent}{line}\n" if line else "\n" for line in _indent_block(lines))
    at = Position(stmt.lineno - 1, 0)
    return Edit(Span(at, at), text)


def insert_lines_after(source: SourceText, stmt: ast.stmt, lines: Sequence[str]) -> Edit | None:
    """Insert whole lines below ``stmt``, at its indentation."""
    if statement_text(source, stmt) is None or stmt.end_lineno is None:
        return None
    if stmt.end_lineno >= len(source.lines) and not source.text.endswith(("\n", "\r")):
        return None  # no line break after the last line to insert behind
    indent = source.indent_of(stmt.lineno)
    text = "".join(f"{indent}{line}\n" if line else "\n" for line in _indent_block(lines))
    at = Position(stmt.end_lineno, 0)
    return Edit(Span(at, at), text)


def wrap_in_block(
    source: SourceText, stmt: ast.stmt, header: str, last: ast.stmt | None = None
) -> Edit | None:
    """``stmt`` (on lines of its own), or the statements of its block from ``stmt`` to ``last``,
    moved into a new block opened by ``header`` (``with torch.no_grad():``), one indentation step
    deeper (the step the file uses there)."""
    last = last or stmt
    if last.end_lineno is None or None in (statement_text(source, stmt), statement_text(source, last)):
        return None
    indent = source.indent_of(stmt.lineno)
    step = "\t" if indent.startswith("\t") else "    "
    rows = [source.line(n) for n in range(stmt.lineno, last.end_lineno + 1)]
    text = f"{indent}{header}\n" + "".join(f"{step}{row}\n" if row.strip() else f"{row}\n" for row in rows)
    end = Position(last.end_lineno, 0)
    if last.end_lineno >= len(source.lines) and not source.text.endswith(("\n", "\r")):
        end = Position(last.end_lineno - 1, len(source.line(last.end_lineno)))
        text = text[:-1]
    return Edit(Span(Position(stmt.lineno - 1, 0), end), text)


def _indent_block(lines: Sequence[str]) -> list[str]:
    return [line for chunk in lines for line in chunk.split("\n")]


def statement_text(source: SourceText, stmt: ast.stmt) -> str | None:
    """The source of a statement, dedented, when it stands on lines of its own."""
    if not source.starts_line(stmt) or stmt.end_lineno is None:
        return None
    indent = len(source.indent_of(stmt.lineno))
    rows = [source.line(n) for n in range(stmt.lineno, stmt.end_lineno + 1)]
    if source.line(stmt.end_lineno)[stmt.end_col_offset or 0 :].strip(" \t;").split("#")[0].strip():
        return None
    return "\n".join(row[indent:] if row[:indent].strip() == "" else row.lstrip() for row in rows)


def code_of_statement(source: SourceText, stmt: ast.stmt) -> str | None:
    """:func:`statement_text` without its comments: what a fix copies or moves elsewhere, where a
    comment about the old place would be stale."""
    text = statement_text(source, stmt)
    if text is None:
        return None
    try:
        comments = [
            token.start
            for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        return text
    rows = text.split("\n")
    for row, column in comments:
        rows[row - 1] = rows[row - 1][:column].rstrip()
    return "\n".join(row for row in rows if row.strip() or not row)


def delete_statement(source: SourceText, stmt: ast.stmt) -> Edit | None:
    """Remove the lines of a statement that stands alone on them."""
    if statement_text(source, stmt) is None or stmt.end_lineno is None:
        return None
    end = Position(stmt.end_lineno, 0)
    if stmt.end_lineno >= len(source.lines) and not source.text.endswith(("\n", "\r")):
        # The last line has no line break to take: the start of a next line would be outside the text.
        end = Position(stmt.end_lineno - 1, len(source.line(stmt.end_lineno)))
    return Edit(Span(Position(stmt.lineno - 1, 0), end), "")


def replace(source: SourceText, node: ast.AST, text: str) -> Edit:
    return Edit(source.span(node), text)


def body_anchor(body: Sequence[ast.stmt]) -> ast.stmt | None:
    """The first statement of a body that new lines go above (after a docstring)."""
    if not body:
        return None
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and len(body) > 1
    ):
        return body[1]
    return first
