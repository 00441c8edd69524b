"""Source text: lines and top-level statements as Python counts them, and ``ast`` byte columns as
code points."""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field

from errknow_ls.core.positions import Position, Span, utf8_col_to_chars

_TOP_LEVEL_START = re.compile(r"^(?:@|[A-Za-z_])")
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")
_TOKENS = re.compile(
    r"""(?:\r\n?|\n)(?=[A-Za-z_@])|#[^\r\n]*|\"\"\"|\'\'\'|"(?:\\.|[^"\\\r\n])*"|'(?:\\.|[^'\\\r\n])*'"""
)
"""What the chunker must see: line ends before a column-0 line, and the comments and strings that
may hide one (``^`` with MULTILINE would scan 6x slower than these literal line ends)."""


@dataclass(slots=True)
class SourceText:
    text: str
    lines: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.lines = split_lines(self.text) or [""]

    def line(self, lineno: int) -> str:
        """The text of 1-based line ``lineno`` ("" past the end)."""
        return self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""

    def position(self, lineno: int, byte_col: int) -> Position:
        return Position(lineno - 1, utf8_col_to_chars(self.line(lineno), byte_col))

    def span(self, node: ast.AST) -> Span:
        start = self.position(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        end = self.position(end_line, end_col) if end_col is not None else start
        return Span(start, end)

    def segment(self, node: ast.AST) -> str:
        """The source of ``node`` from the lines already split (``ast.get_source_segment`` would
        split the whole text again on every call)."""
        if getattr(node, "end_lineno", None) is None:
            return ""
        span = self.span(node)
        if span.start.line == span.end.line:
            return self.lines[span.start.line][span.start.character : span.end.character]
        first = self.lines[span.start.line][span.start.character :]
        middle = self.lines[span.start.line + 1 : span.end.line]
        last = self.lines[span.end.line][: span.end.character] if span.end.line < len(self.lines) else ""
        return "\n".join([first, *middle, last])

    def indent_of(self, lineno: int) -> str:
        line = self.line(lineno)
        return line[: len(line) - len(line.lstrip())]

    def starts_line(self, node: ast.stmt) -> bool:
        """True when nothing but indentation stands before ``node`` on its first line."""
        return not self.line(node.lineno)[: self.position(node.lineno, node.col_offset).character].strip()


def call_name(call: ast.Call) -> str:
    """``f(...)`` -> ``f``, ``x.step(...)`` -> ``step``, anything else -> ``""``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def called_names(*nodes: ast.AST) -> set[str]:
    """The names of every call below ``nodes``."""
    return {call_name(n) for node in nodes for n in ast.walk(node) if isinstance(n, ast.Call)} - {""}


def split_lines(text: str) -> list[str]:
    """Lines as Python counts them: only \\n, \\r\\n and \\r end one (not form feeds or U+2028)."""
    if "\r" not in text:
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        return lines
    return [m.group(1) for m in _LINE.finditer(text) if m.group(0)]


_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|$)")


def parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, type_comments=False)


def chunk_offsets(text: str) -> list[int]:
    """Where each top-level statement starts: at a line that starts in column 0, unless it
    continues a compound statement (``else:``, ``except …:``), follows a decorator, or lies inside
    a string (a docstring's column-0 lines). A column-0 line inside brackets still starts one; such
    a split leaves the chunk before it unparsable, which is how callers notice."""
    starts = [0]
    decorated = _TOP_LEVEL_START.match(text) is not None and text.startswith("@")
    at = 0
    while True:
        match = _TOKENS.search(text, at)
        if match is None:
            break
        token = match.group()
        at = match.end()
        if token in ('"""', "'''"):
            close = text.find(token, at)
            at = len(text) if close == -1 else close + 3
        elif token.startswith(("\n", "\r")) and not _CONTINUES.match(text, at):
            if not decorated:
                starts.append(at)
            decorated = text.startswith("@", at)
    return starts


def describe(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"line {exc.lineno}: {exc.msg}"
    return f"{type(exc).__name__}: {exc}"
