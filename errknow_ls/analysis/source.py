"""Source text: lines and top-level statements as Python counts them, and ``ast`` byte columns as
code points."""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

from errknow_ls.core.findings import limit_note
from errknow_ls.core.positions import Position, Span, utf8_col_to_chars

_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")
_COLUMN_0_LF = re.compile(r"\n(?=[A-Za-z_@])")
"""A line end before a line that starts in column 0. A literal first character lets ``re`` skip
ahead: ``^`` with MULTILINE, or any line end, scans 8x slower (the other pattern, for \\r)."""
_COLUMN_0 = re.compile(r"(?:\r\n?|\n)(?=[A-Za-z_@])")


HUGE = 1_000_000
"""Characters from which a text of mostly module-level statements is checked as one unit (a 5 MB
generated script), and the server checks a document in a process kept for it; here, where the
server reads it without loading the checker."""


@dataclass(slots=True)
class SourceText:
    text: str
    lines: list[str] = field(default_factory=list)
    """Given when known (an edit of a known text), else split from ``text``."""

    def __post_init__(self) -> None:
        if not self.lines:
            self.lines = split_lines(self.text) or [""]

    def edited(self, text: str, at: int) -> SourceText:
        """This source after an edit that changed only the line holding offset ``at`` of ``text``
        (no line end added or removed): the other lines are not split again."""
        start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
        ends = [i for i in (text.find("\n", at), text.find("\r", at)) if i != -1]
        line = text[start : min(ends) if ends else len(text)]
        number = text.count("\n", 0, start) if "\r" not in text else len(split_lines(text[:start]))
        lines = list(self.lines)
        lines[number] = line
        return SourceText(text, lines)

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


BACKWARD_NAMES = frozenset({"backward", "manual_backward", "grad"})
"""Names of the calls that may run a backward (a tensor's or a wrapper's ``backward``, Lightning's
``manual_backward``, ``autograd.grad``): a call by another name reaches one only through code that
makes one of these calls."""


def called_names(*nodes: ast.AST) -> set[str]:
    """The names of every call below ``nodes``."""
    return {call_name(n) for n in inner_nodes(*nodes) if type(n) is ast.Call} - {""}


def inner_nodes(*nodes: ast.AST) -> Iterator[ast.AST]:
    """``nodes`` and every node below them but names, constants and contexts, in no set order.

    ``ast.walk`` imports ``deque`` on every call and visits every leaf; run once per statement and
    finding, that was a fifth of a check.
    """
    stack = [n for n in nodes if type(n) not in LEAVES]
    while stack:
        node = stack.pop()
        yield node
        for name in walked_fields(type(node)):
            value = getattr(node, name, None)
            if type(value) is list:
                stack.extend(item for item in value if type(item) not in LEAVES and isinstance(item, ast.AST))
            elif value is not None and type(value) not in LEAVES and isinstance(value, ast.AST):
                stack.append(value)


def shift_lines(tree: ast.AST, lines: int) -> None:
    """``ast.increment_lineno`` for a tree parsed on its own, without its per-node generators."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if "lineno" in node._attributes:
            node.lineno += lines  # type: ignore[attr-defined]
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += lines  # type: ignore[attr-defined]
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)


LEAVES = frozenset({ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del, ast.alias, ast.Pass, str, int})
"""Nodes that hold no other node (``alias`` and ``Pass``: none the checker looks for)."""
_NOT_NODES = frozenset({"ctx", "type_comment", "name", "id", "attr", "arg", "asname", "module", "level"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def walked_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes."""
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(f for f in getattr(kind, "_fields", ()) if f not in _NOT_NODES)
    return fields


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
    a triple-quoted string (a docstring's column-0 lines). A column-0 line inside brackets still
    starts one, as does one inside a triple-quoted string that a comment or a one-line string
    seemed to open; such a split leaves the chunk before it unparsable, which is how callers
    notice."""
    strings = _triple_quoted(text)
    starts = [0]
    decorated = text.startswith("@")
    index = 0
    for match in (_COLUMN_0 if "\r" in text else _COLUMN_0_LF).finditer(text):
        at = match.end()
        while index < len(strings) and strings[index][1] <= at:
            index += 1
        if index < len(strings) and strings[index][0] < at:
            continue  # inside a string
        if _CONTINUES.match(text, at):
            continue
        if not decorated:
            starts.append(at)
        decorated = text.startswith("@", at)
    return starts


def _find_all(text: str, needle: str) -> list[tuple[int, str]]:
    """Every place of ``needle`` (str.find: a regex alternation of two literals scans 8x slower)."""
    found = []
    at = text.find(needle)
    while at != -1:
        found.append((at, needle))
        at = text.find(needle, at + len(needle))
    return found


def _triple_quoted(text: str) -> list[tuple[int, int]]:
    """The spans of triple-quoted strings, pairing each opening quote with the next of its kind."""
    spans = []
    opened: tuple[str, int] | None = None
    for at, quote in sorted(_find_all(text, '"""') + _find_all(text, "'''")):
        if opened is None:
            opened = (quote, at)
        elif quote == opened[0] and at >= opened[1] + 3:
            spans.append((opened[1], at + 3))
            opened = None
    if opened is not None:
        spans.append((opened[1], len(text)))
    return spans


def describe(exc: BaseException, text: str, shift: int = 0) -> str:
    """The error of parsing ``text``, whose first line is line ``shift + 1`` of the module."""
    if isinstance(exc, SyntaxError):
        # A null byte's error comes without a line ("line None: ..."): name the first one's.
        lineno = exc.lineno if exc.lineno is not None else text.count("\n", 0, max(text.find("\0"), 0)) + 1
        return f"line {lineno + shift}: {exc.msg}"
    return f"{type(exc).__name__}: {exc}"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""In a Python string, a valid UTF-16 pair is one code point: any surrogate left is half of one."""
_LINE_BREAK = re.compile(r"\r\n?|\n")
REPLACEMENT = "\ufffd"


def without_lone_surrogates(text: str) -> tuple[str, str | None]:
    """``text`` with each lone surrogate replaced by U+FFFD, and a note naming the first; the text
    and None when it holds none.

    An editor's JavaScript string may hold half of a UTF-16 pair, and JSON may spell one (a
    ``didOpen``, a notebook's cell); UTF-8 has no code for it, so Python cannot read such a text
    (``ast.parse`` fails to encode it) and nothing of it would be checked. U+FFFD takes as many
    UTF-16 units (1), code points (1) and UTF-8 bytes (3, as ``surrogatepass`` writes a surrogate)
    as what it replaces: every position stays where it was."""
    if text.isascii():  # a flag of the string: no scan
        return text, None
    first = _LONE_SURROGATE.search(text)
    if first is None:
        return text, None
    count = len(_LONE_SURROGATE.findall(text, first.start()))
    line = len(_LINE_BREAK.findall(text, 0, first.start())) + 1
    others = f" ({count - 1:,} more after it)" if count > 1 else ""
    what = (
        f"a lone surrogate, U+{ord(first.group()):04X}{others}: half of a UTF-16 pair, which UTF-8 "
        "cannot encode and Python cannot read; checked as if it were U+FFFD, the replacement character"
    )
    return _LONE_SURROGATE.sub(REPLACEMENT, text), limit_note(what, line)
