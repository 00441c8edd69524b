"""Source text: parsing that survives half-typed code, and ``ast`` byte columns as code points."""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field

from errknow_ls.core.positions import Position, Span, utf8_col_to_chars

_TOP_LEVEL_START = re.compile(r"^(?:@|def |async def |class |if |for |while |with |try\b|[A-Za-z_])")


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
    return [m.group(1) for m in _LINE.finditer(text) if m.group(0)]


_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|$)")


def _parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, type_comments=False)


def _chunks(lines: list[str]) -> list[tuple[int, int]]:
    """Line ranges (0-based, end exclusive) of each top-level statement, found by indentation."""
    starts = [i for i, line in enumerate(lines) if _TOP_LEVEL_START.match(line)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return [(a, b) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True) if a < b]


def parse_module(text: str) -> tuple[ast.Module, list[str]]:
    """Parse ``text``; when it does not parse, parse each top-level definition on its own.

    Returns a module of every part that parsed (line numbers as in ``text``) and the errors.
    """
    try:
        return _parse(text), []
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        errors = [_describe(exc, text)]
    lines = split_lines(text)  # not str.splitlines: form feeds and U+2028 end no line for Python
    body: list[ast.stmt] = []
    for start, end in _chunks(lines):
        chunk = "\n" * start + "\n".join(lines[start:end]) + "\n"
        try:
            body.extend(_parse(chunk).body)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return ast.Module(body=body, type_ignores=[]), errors


def _describe(exc: BaseException, text: str) -> str:
    if isinstance(exc, SyntaxError):
        # A null byte's error comes without a line ("line None: ..."): name the first one's.
        lineno = exc.lineno if exc.lineno is not None else text.count("\n", 0, max(text.find("\0"), 0)) + 1
        return f"line {lineno}: {exc.msg}"
    return f"{type(exc).__name__}: {exc}"
