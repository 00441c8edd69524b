"""Record regexes compiled with the ``regex`` module and always run under a timeout."""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

MATCH_TIMEOUT = 0.05
"""Seconds one pattern may spend on one text; a user's catastrophic pattern must never hang us."""

FLAGS = regex.VERSION1 | regex.IGNORECASE

MAX_PATTERN_CHARS = 10_000
"""A record's pattern recognises one message; compiling a huge one (a 300 kB set: seconds) is not worth it."""
MAX_EXPANDED = 100_000
"""Elements a pattern may unroll to. Counted repeats nest multiplicatively, and ``regex`` builds every
copy when it compiles: ``((a{100}){100}){100}`` fills gigabytes before anything can time out."""

UNRELATED_LINES = ("KeyError: 'k'", "ZeroDivisionError: division by zero", "x")
"""Lines no two records have in common: a pattern found in all of them (or in "") is found in any text."""

_REPEAT = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_BRACED_ESCAPE = re.compile(r"\\[pPNxuUgk]\{[^}]*\}")


class PatternTimeout(Exception):
    """A record's pattern ran past its time on some text."""


class PatternRejected(ValueError):
    """A pattern that compiles, but that no record may use; the message says why."""


@dataclass(frozen=True, slots=True)
class CompiledPattern:
    source: str
    compiled: regex.Pattern[str]

    def search(self, text: str, timeout: float = MATCH_TIMEOUT) -> regex.Match[str] | None:
        try:
            return self.compiled.search(text, timeout=timeout)
        except TimeoutError as exc:
            raise PatternTimeout(self.source) from exc


def compile_pattern(source: str) -> CompiledPattern:
    """Compile ``source``; raises ``regex.error`` when it does not compile, ``PatternRejected`` when it
    would unroll too far or is found in any text (it would claim every traceback)."""
    if len(source) > MAX_PATTERN_CHARS:
        raise PatternRejected(f"{len(source):,} characters long (the limit is {MAX_PATTERN_CHARS:,})")
    size = expanded_size(source)
    if size > MAX_EXPANDED:
        raise PatternRejected(f"its repeats unroll to about {size:,} elements (limit {MAX_EXPANDED:,})")
    pattern = CompiledPattern(source, regex.compile(source, FLAGS))
    try:
        if pattern.search("") is not None or all(pattern.search(line) for line in UNRELATED_LINES):
            raise PatternRejected("it is found in any text, so it would claim every traceback")
    except PatternTimeout as exc:
        raise PatternRejected("it times out on a short line") from exc
    return pattern


def expanded_size(source: str) -> int:
    """About how many elements ``source`` unrolls to: atoms, with each counted repeat multiplying
    what it repeats. An over-estimate (alternatives add up), never run, linear in the pattern."""
    sizes = [0]
    last, i, length = 0, 0, len(source)
    while i < length:
        char = source[i]
        if char == "\\":
            braced = _BRACED_ESCAPE.match(source, i)
            i = braced.end() if braced else i + 2
            sizes[-1], last = sizes[-1] + 1, 1
            continue
        if char == "[":
            i = set_end(source, i) or length
            sizes[-1], last = sizes[-1] + 1, 1
            continue
        if char == "(":
            sizes.append(0)
            last = 0
        elif char == ")" and len(sizes) > 1:
            last = sizes.pop()
            sizes[-1] += last
        elif char == "{" and (repeat := _REPEAT.match(source, i)) and (repeat[1] or repeat[2]):
            count = max(int(repeat[1] or 0), int(repeat[2] or 0))
            sizes[-1] += last * max(count - 1, 0)
            last *= count
            i = repeat.end()
            continue
        else:
            sizes[-1], last = sizes[-1] + 1, 1
        i += 1
    return sum(sizes)


def set_end(source: str, start: int) -> int | None:
    """The index after the ``]`` that closes the set opened at ``start`` (sets nest in VERSION1;
    a ``]`` first in a set, or after its ``^``, is a character); None when it is never closed."""
    depth, i = 0, start
    while i < len(source):
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            depth += 1
            if source.startswith("^]", i + 1) or source.startswith("]", i + 1):
                i += 2 if source[i + 1] == "]" else 3
                continue
        elif char == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None
