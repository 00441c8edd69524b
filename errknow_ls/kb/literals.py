"""What text a record's regex cannot match without: for each top-level alternative, the runs of plain
characters it spells out. The index runs a regex only on messages that hold every run of one of its
alternatives, so with thousands of records a message costs the few whose text it contains.

The reading is conservative: anything it does not follow (escapes of letters, classes, groups,
quantified characters, non-ASCII characters) ends a run and adds nothing to one, so a run is always
text every match contains. A pattern it cannot read at all (unbalanced, or with global flags other
than ``i``, ``m``, ``s``, which could make spaces or brackets mean something else) gives ``None``:
that record's regex runs on every message.

Patterns are compiled case-insensitively with full case folding (``patterns.FLAGS``): runs are
ASCII and compared with ``str.casefold`` of the message, which folds ``ß`` to ``ss``, ``K`` (Kelvin)
to ``k`` and every other character the way the matcher does.
"""

from __future__ import annotations

import re
import string

from errknow_ls.kb.patterns import set_end

_PLAIN = frozenset(string.ascii_letters + string.digits + string.punctuation + " ") - frozenset(
    "\\[](){}|.^$*+?"
)
_ESCAPED_LITERALS = frozenset(string.punctuation + " ")
_GLOBAL_FLAGS = re.compile(r"\(\?([A-Za-z0-9-]*)\)")
_HARMLESS_FLAGS = frozenset("ims")

Branch = tuple[str, ...]


class _Unreadable(Exception):
    """A pattern this reader does not follow."""


def required_runs(pattern: str) -> tuple[Branch, ...] | None:
    """For each top-level alternative, the casefolded runs every match of it contains."""
    for flags in _GLOBAL_FLAGS.findall(pattern):
        if not set(flags) <= _HARMLESS_FLAGS:
            return None
    try:
        return tuple(_runs(branch) for branch in _branches(pattern))
    except _Unreadable:
        return None


def _branches(pattern: str) -> list[str]:
    branches, start, at = [], 0, 0
    while at < len(pattern):
        char = pattern[at]
        if char == "(":
            at = _group_end(pattern, at)
            continue
        if char == ")":
            raise _Unreadable(pattern)
        if char == "|":
            branches.append(pattern[start:at])
            start = at + 1
        at = _past(pattern, at)
    branches.append(pattern[start:])
    return branches


def _group_end(pattern: str, at: int) -> int:
    """The index after the ``)`` that closes the group opened at ``at``."""
    depth = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at + 1
        at = _past(pattern, at)
    raise _Unreadable(pattern)


def _past(pattern: str, at: int) -> int:
    """The index after the character at ``at``, or after the escape or the set it opens."""
    return at + 2 if pattern[at] == "\\" else _class_end(pattern, at) if pattern[at] == "[" else at + 1


def _class_end(pattern: str, at: int) -> int:
    end = set_end(pattern, at)
    if end is None:
        raise _Unreadable(pattern)
    return end


def _runs(branch: str) -> Branch:
    runs: list[str] = []
    run: list[str] = []

    def end(drop_last: bool = False) -> None:
        if drop_last and run:
            run.pop()
        if run:
            runs.append("".join(run).casefold())
        run.clear()

    at = 0
    while at < len(branch):
        char = branch[at]
        if char == "\\":
            escaped = branch[at + 1 : at + 2]
            if not escaped:
                raise _Unreadable(branch)
            if escaped in _ESCAPED_LITERALS:
                run.append(escaped)
                at += 2
                continue
            end()
            at = _escape_end(branch, at + 1)
        elif char == "[":
            end()
            at = _class_end(branch, at)
        elif char == "(":
            end()
            at = _group_end(branch, at)
        elif char in "*+?":
            end(drop_last=True)
            at += 1
        elif char == "{":
            end(drop_last=True)
            close = branch.find("}", at)
            at = at + 1 if close < 0 else close + 1
        elif char in _PLAIN:
            run.append(char)
            at += 1
        else:
            end()
            at += 1
    end()
    return tuple(runs)


def _escape_end(branch: str, at: int) -> int:
    """Past an escape of a letter or digit (``\\d``, ``\\x41``, ``\\N{...}``, ``\\g<1>``, ``\\12``):
    its arguments too, and the letters and digits after it, which are never taken as text."""
    at += 1
    if branch.startswith(("{", "<"), at):
        close = branch.find("}" if branch[at] == "{" else ">", at)
        return len(branch) if close < 0 else close + 1
    while at < len(branch) and branch[at].isascii() and branch[at].isalnum():
        at += 1
    return at
