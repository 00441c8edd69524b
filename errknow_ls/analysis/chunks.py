"""A module as top-level chunks, each parsed on its own and remembered by its text.

A chunk is one top-level statement with the comments and blank lines after it. An edit changes one
chunk; the others keep their parse and what was learnt from it, so re-checking an edited document
costs in proportion to what the edit touched. A chunk is known by its text *and* its first line:
a node's line numbers are part of what the checker reports.
"""

from __future__ import annotations

import ast
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

from errknow_ls.analysis.source import (
    call_name,
    called_names,
    chunk_offsets,
    chunk_starts,
    describe,
    parse,
    split_lines,
)

PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
ChunkKey = tuple[int, str]
_WORD = re.compile(r"\w+")
_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True, eq=False)
class Chunk:
    start: int
    """0-based first line."""
    text: str
    body: tuple[ast.stmt, ...]
    error: str | None
    """Why the chunk does not parse on its own (then ``body`` is empty)."""
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

    @property
    def key(self) -> ChunkKey:
        return self.start, self.text


def read_chunk(start: int, text: str) -> Chunk:
    try:
        module = parse(text)
    except PARSE_ERRORS as exc:
        error = describe(exc)
        if isinstance(exc, SyntaxError) and exc.lineno is not None:
            error = f"line {exc.lineno + start}: {exc.msg}"
        return Chunk(start, text, (), error, "other", "", {}, frozenset(), frozenset(_WORD.findall(text)))
    if start:
        ast.increment_lineno(module, start)
    body = tuple(module.body)
    kind, name = "other", ""
    if len(body) == 1 and isinstance(body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        kind, name = "function", body[0].name
    elif len(body) == 1 and isinstance(body[0], ast.ClassDef):
        kind, name = "class", body[0].name
    functions: dict[str, set[str]] = {}
    collect_calls(module, None, functions)
    definitions = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    top = called_names(*(s for s in body if not isinstance(s, definitions)))
    methods = frozenset(
        m.name
        for m in (body[0].body if kind == "class" else ())  # type: ignore[attr-defined]
        if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name != "__init__"
    )
    return Chunk(
        start,
        text,
        body,
        None,
        kind,
        name,
        {k: frozenset(v) for k, v in functions.items()},
        frozenset(top),
        frozenset(_WORD.findall(text)),
        methods,
    )


def collect_calls(node: ast.AST, owner: str | None, functions: dict[str, set[str]]) -> None:
    """Names each function calls (its nested functions' calls count for it too), in one walk."""
    for child in ast.iter_child_nodes(node):
        inner = owner
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = child.name
            functions.setdefault(inner, set())
        if isinstance(child, ast.Call) and owner is not None:
            functions[owner].add(call_name(child))
        collect_calls(child, inner, functions)
        if inner is not None and inner is not owner and owner is not None:
            functions[owner] |= functions[inner]


def split_chunks(text: str) -> list[ChunkKey]:
    """``text`` cut into (first line, text) at each top-level statement; joined they are ``text``."""
    offsets = chunk_offsets(text)
    if offsets is not None:
        keys = []
        line = previous = 0
        for start, end in zip(offsets, [*offsets[1:], len(text)], strict=True):
            line += text.count("\n", previous, start)
            previous = start
            keys.append((line, text[start:end]))
        return keys
    lines = split_lines(text)
    line_offsets = [0, *(m.end() for m in _LINE_END.finditer(text))]
    starts = chunk_starts(lines)
    ends = [*starts[1:], len(lines)]
    return [
        (start, text[line_offsets[start] : line_offsets[end] if end < len(lines) else len(text)])
        for start, end in zip(starts, ends, strict=True)
    ]


class ChunkCache:
    """Chunks by (first line, text), least recently used dropped past ``max_lines`` lines.

    Shared by the threads that check documents: a lookup and an insert are each one step under a
    lock; two threads parsing the same new chunk at once both succeed, and either result is right.
    """

    def __init__(self, max_lines: int = 60_000) -> None:
        self.max_lines = max_lines
        self._chunks: OrderedDict[ChunkKey, Chunk] = OrderedDict()
        self._lines = 0
        self._lock = threading.Lock()

    def get(self, key: ChunkKey) -> Chunk:
        with self._lock:
            chunk = self._chunks.get(key)
            if chunk is not None:
                self._chunks.move_to_end(key)
                return chunk
        chunk = read_chunk(*key)
        with self._lock:
            if key not in self._chunks:
                self._chunks[key] = chunk
                self._lines += chunk.text.count("\n") + 1
                while self._lines > self.max_lines and len(self._chunks) > 1:
                    _, old = self._chunks.popitem(last=False)
                    self._lines -= old.text.count("\n") + 1
        return chunk
