"""A module as top-level chunks, each parsed on its own and remembered by its text.

A chunk is one top-level statement with the comments and blank lines after it. An edit changes one
chunk; the others keep their parse and what was learnt from it, so re-checking an edited document
costs in proportion to what the edit touched. A chunk is known by its text *and* its first line:
a node's line numbers are part of what the checker reports.
"""

from __future__ import annotations

import ast
import bisect
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from errknow_ls.analysis.source import (
    LEAVES,
    call_name,
    called_names,
    chunk_offsets,
    describe,
    parse,
    shift_lines,
    walked_fields,
)

PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
NEWLINES_PER_LINE = 256
MAX_DEPTH = 100
"""How deep a statement's tree may be for the checker's recursive walks to follow it within
Python's stack (a chain of a few hundred calls parses, but would not)."""
MAX_EXPRESSION_DEPTH = 64
"""In a statement deeper than MAX_DEPTH, an expression deeper than this (a sum of 99 terms, a chain
of calls) is left out, as a value the checker knows nothing of: the rest of the statement, and of
its function, is still checked."""
UNCHECKED = "__errknow_unchecked__"
"""The name that stands for an expression left out: unknown, so it never reports."""
ChunkKey = tuple[int, str]
T = TypeVar("T")
_WORD = re.compile(r"\w+")
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True, eq=False)
class Chunk:
    start: int
    """0-based first line."""
    text: str
    error: str | None
    """Why the chunk does not parse on its own."""
    kind: str
    """``function``, ``class`` (one such definition) or ``other`` (imports, assignments, a script)."""
    name: str
    """The function's or class's name; "" for other chunks."""
    calls: dict[str, frozenset[str]]
    """Each function defined in the chunk (methods and nested ones too) -> the names it calls."""
    top_calls: frozenset[str]
    """Names called by the chunk's statements outside any definition."""
    words: frozenset[str]
    """Every identifier-like word of the text: what the chunk may refer to."""
    methods: frozenset[str] = frozenset()
    """A class's own methods, ``__init__`` aside: the entry points it may offer."""
    too_deep: tuple[int, ...] = ()
    """Lines of statements nested deeper than MAX_DEPTH: left out of the body, and reported."""
    deep_expressions: tuple[int, ...] = ()
    """Lines of expressions deeper than MAX_EXPRESSION_DEPTH left out of deep statements, reported."""
    cut: bool = False
    """The chunk does not parse because it ends inside something open (a bracket, a string, a
    line continuation): the chunker may have cut a statement, where a whole parse would succeed.
    Any other syntax error is the code's own."""

    @property
    def key(self) -> ChunkKey:
        return self.start, self.text


Body = tuple[ast.stmt, ...]


def read_chunk(start: int, text: str) -> tuple[Chunk, Body]:
    """What the chunk at ``start`` says, and its statements (none when it does not parse)."""
    # Line numbers as in the module. Leading newlines cost the tokenizer ~18 ns each, moving the
    # tree afterwards (ast.increment_lineno) ~7 us a line of the chunk: newlines for a chunk near
    # the top or a long one, the move for a short chunk far down (else a file of many small
    # statements parses in quadratic time).
    shift = start if start > NEWLINES_PER_LINE * (text.count("\n") + 1) else 0
    placed = text if shift else "\n" * start + text
    try:
        module = parse(placed)
    except PARSE_ERRORS as exc:
        error = describe(exc, placed, shift)
        words = frozenset(map(sys.intern, _WORD.findall(text)))
        cut = _cut(exc, start - shift, text)
        return Chunk(start, text, error, "other", "", {}, frozenset(), words, cut=cut), ()
    if shift:
        shift_lines(module, shift)
    functions: dict[str, set[str]] = {}
    deep_expressions: list[int] = []
    body = tuple(s for s in module.body if within_depth(s, functions, deep_expressions))
    too_deep = tuple(s.lineno for s in module.body if s not in body)
    kind, name = "other", ""
    if len(body) == 1 and isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        kind, name = "function", body[0].name
    elif len(body) == 1 and isinstance(body[0], ast.ClassDef):
        kind, name = "class", body[0].name
    definitions = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    top = called_names(*(s for s in body if not isinstance(s, definitions)))
    methods = frozenset(
        m.name
        for m in (body[0].body if kind == "class" else ())  # type: ignore[attr-defined]
        if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name != "__init__"
    )
    chunk = Chunk(
        start,
        text,
        None,
        kind,
        name,
        {k: frozenset(v) for k, v in functions.items()},
        frozenset(top),
        frozenset(map(sys.intern, _WORD.findall(text))),  # one copy of each name for all files
        methods,
        too_deep,
        tuple(deep_expressions),
    )
    return chunk, body


def within_depth(stmt: ast.stmt, functions: dict[str, set[str]], left_out: list[int]) -> bool:
    """Whether ``stmt`` can be checked: it is at most MAX_DEPTH deep once its expressions deeper
    than MAX_EXPRESSION_DEPTH are left out (their lines are added to ``left_out``)."""
    if calls_by_function(stmt, functions) <= MAX_DEPTH:
        return True
    cut = _leave_out_deep_expressions(stmt)
    if calls_by_function(stmt, {}) > MAX_DEPTH:
        return False
    left_out += cut
    return True


def _leave_out_deep_expressions(stmt: ast.stmt) -> list[int]:
    """Replace each outermost expression of ``stmt`` deeper than MAX_EXPRESSION_DEPTH by the name
    UNCHECKED, in place; the lines where they started. Walked without recursion."""
    order: list[ast.AST] = []
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(ast.iter_child_nodes(node))
    height: dict[int, int] = {}
    for node in reversed(order):  # children before their parents
        height[id(node)] = 1 + max((height[id(c)] for c in ast.iter_child_nodes(node)), default=0)

    def deep(value: object) -> bool:
        return isinstance(value, ast.expr) and height[id(value)] > MAX_EXPRESSION_DEPTH

    lines: list[int] = []
    stack = [stmt]
    while stack:
        node = stack.pop()
        for field, value in ast.iter_fields(node):
            items = value if isinstance(value, list) else [value]
            for index, item in enumerate(items):
                if deep(item):
                    lines.append(item.lineno)
                    items[index] = ast.copy_location(
                        ast.Name(UNCHECKED, getattr(item, "ctx", ast.Load())), item
                    )
                elif isinstance(item, ast.AST):
                    stack.append(item)
            if not isinstance(value, list):
                setattr(node, field, items[0])
    return sorted(lines)


_OPEN_AT_END = ("never closed", "unterminated", "unexpected EOF", "expected an indented block")


def _cut(exc: BaseException, start: int, text: str) -> bool:
    if not isinstance(exc, SyntaxError):
        return True
    last = start + text.rstrip().count("\n") + 1
    return any(words in exc.msg for words in _OPEN_AT_END) or (exc.lineno or last) >= last


INSTANCE_ENTRIES = frozenset({"__init__", "__call__", "forward"})
"""The methods a class's instance runs when it is made or called."""


def calls_by_function(
    tree: ast.AST, functions: dict[str, set[str]], outside: frozenset[str] = frozenset()
) -> int:
    """Add the names each function in ``tree`` calls (its nested functions' calls count for it
    too) to ``functions``; return how deep the tree is. A call of a name in ``outside``, or of an
    attribute of one (``thop.profile(...)``), is not added: the module binds that name only to
    what comes from outside the project (``analysis/outside.py``), whose code is never followed.

    One walk with an explicit stack that never descends into names, constants and contexts:
    three times faster than a walk by ``ast.iter_child_nodes``, and this walk sees every node of
    every chunk.
    """
    deepest = 0
    stack: list[tuple[ast.AST, tuple[str, ...], int]] = [(tree, (), 1)]
    while stack:
        node, owners, depth = stack.pop()
        deepest = max(deepest, depth)
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            name = node.name  # type: ignore[attr-defined]
            functions.setdefault(name, set())
            owners = (*owners, name)
        elif kind is ast.ClassDef:
            # Calling a class runs its constructor, and whoever holds the instance may call it
            # (`cam(image)` runs `__call__`, `model(x)` runs `forward`): the class's name reaches
            # what those reach.
            functions.setdefault(node.name, set()).update(INSTANCE_ENTRIES)  # type: ignore[attr-defined]
        elif kind is ast.Call and owners and not (outside and _calls_outside(node, outside)):  # type: ignore[arg-type]
            called = call_name(node)  # type: ignore[arg-type]
            for owner in owners:
                functions[owner].add(called)
        depth += 1
        for field in walked_fields(kind):
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend((item, owners, depth) for item in value if type(item) not in LEAVES)
            elif value is not None and type(value) not in LEAVES and isinstance(value, ast.AST):
                stack.append((value, owners, depth))
    return deepest


def _calls_outside(call: ast.Call, outside: frozenset[str]) -> bool:
    """The call's callee is a name of ``outside`` (``f`` of ``f(...)``), or an attribute of one
    (``a`` of ``a.b.c(...)``)."""
    func = call.func
    while isinstance(func, ast.Attribute):
        func = func.value
    return isinstance(func, ast.Name) and func.id in outside


def split_chunks(text: str) -> list[ChunkKey]:
    """``text`` cut into (first line, text) at each top-level statement; joined they are ``text``."""
    offsets = chunk_offsets(text)
    count = (lambda a, b: text.count("\n", a, b)) if "\r" not in text else _count_line_ends(text)
    keys = []
    line = previous = 0
    for start, end in zip(offsets, [*offsets[1:], len(text)], strict=True):
        line += count(previous, start)
        previous = start
        keys.append((line, text[start:end]))
    return keys


def _count_line_ends(text: str) -> Callable[[int, int], int]:
    ends = [m.end() for m in _LINE_END.finditer(text)]
    return lambda a, b: bisect.bisect_right(ends, b) - bisect.bisect_right(ends, a)


class ChunkCache:
    """Chunks by (first line, text), and the statements of the most recently used ones.

    What a chunk says (its names, calls, words) is kept for ``max_lines`` lines, least recently used
    dropped first; its syntax tree, five times larger, for ``max_tree_lines``, and parsed again
    when needed after that. Shared by the threads that check documents: each lookup and insert
    holds a lock; two threads parsing the same new chunk at once both succeed, and either result
    is right.
    """

    def __init__(self, max_lines: int = 50_000, max_tree_lines: int = 8_000) -> None:
        self._chunks = _Lru[Chunk](max_lines)
        self._trees = _Lru[Body](max_tree_lines)
        self._moved = _Lru[Chunk](max_lines)
        """Chunks that parsed, by their text alone: the same text on another line (lines added or
        removed above it) says the same, at lines moved by as many."""

    def get(self, key: ChunkKey) -> tuple[Chunk, Body | None]:
        """The chunk, and its statements if this call parsed them (a chunk known at another line
        is moved there, and parsed only when a unit that reaches it runs)."""
        chunk = self._chunks.get(key)
        if chunk is not None:
            return chunk, None
        lines = _lines(key[1])
        elsewhere = self._moved.get((0, key[1]))
        if elsewhere is not None:
            chunk = moved(elsewhere, key[0])
            self._chunks.put(key, chunk, lines)
            return chunk, None
        chunk, body = read_chunk(*key)
        self._chunks.put(key, chunk, lines)
        self._trees.put(key, body, lines)
        if chunk.error is None:
            self._moved.put((0, key[1]), chunk, lines)
        return chunk, body

    def body(self, chunk: Chunk) -> Body:
        body = self._trees.get(chunk.key)
        if body is None:
            _, body = read_chunk(*chunk.key)
            self._trees.put(chunk.key, body, _lines(chunk.text))
        return body


def moved(chunk: Chunk, start: int) -> Chunk:
    """``chunk`` (one that parsed) with its text starting at line ``start`` instead."""
    by = start - chunk.start
    if not by:
        return chunk
    return replace(
        chunk,
        start=start,
        too_deep=tuple(line + by for line in chunk.too_deep),
        deep_expressions=tuple(line + by for line in chunk.deep_expressions),
    )


def _lines(text: str) -> int:
    return text.count("\n") + 1


class _Lru(Generic[T]):
    """Values by key, least recently used dropped once their sizes pass ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: OrderedDict[ChunkKey, tuple[T, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: ChunkKey) -> T | None:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: ChunkKey, value: T, size: int) -> None:
        with self._lock:
            if key in self._items:
                return
            self._items[key] = (value, size)
            self._size += size
            while self._size > self.limit and len(self._items) > 1:
                _, (_, dropped) = self._items.popitem(last=False)
                self._size -= dropped
