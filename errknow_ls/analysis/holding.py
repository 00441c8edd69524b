"""A fix that holds: the one test that decides which fixes are offered, in the editor and by ``check``,
and which ``check --fix`` keeps.

A fix holds when, applied to the text its finding was found in, the result still parses (if the text
did) and checking the result no longer finds that finding where the fix moved it (same code, same
start). The checker does not take its own fix on trust: a fix whose finding is found again would be
dropped by ``check --fix`` after it was applied, so it is not offered at all (a quick fix that leaves
the error in place is worse than none; ruff and pyright offer no such fix either).

``check_source`` keeps, for every finding, only its fixes that hold on their own
(:func:`holding_fixes`); the fix loop, which applies several findings' fixes together, asks
:func:`found_again` of the result, since fixes that hold alone may not hold together.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings
from collections.abc import Callable, Sequence

from errknow_ls.core import Applicability, Edit, Finding, Fix, OverlappingEdits, Position, apply_edits
from errknow_ls.core.edits import Offsets, shift

Check = Callable[[str], tuple[Sequence[Finding], bool]]
"""Check a text (with the same rules, project and suppressions) and return what it found, and
whether the checker read it whole (no syntax error): parsing the text apart as well cost 0.2 s
for each fix of a 5,000-line file."""


def parses(text: str) -> bool:
    """Whether ``text`` is Python that parses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def breaks_parsing(text: str, new_text: str) -> bool:
    """Edits made ``text``, which parsed, into ``new_text``, which does not."""
    return parses(text) and not parses(new_text)


def found_again(
    text: str,
    edits: Sequence[Edit],
    finding: Finding,
    found: Sequence[Finding],
    *,
    offsets: Offsets | None = None,
    new_text: str | None = None,
) -> bool:
    """``finding`` of ``text`` is among ``found`` (what checking ``text`` with ``edits`` applied
    found): the same code where the edits moved its start. A finding whose start an edit replaced
    is not found again. ``offsets`` and ``new_text``: ``text``'s offsets and ``text`` with ``edits``
    applied, where the caller has them already."""
    offsets = offsets or Offsets(text)
    moved = shift(offsets(finding.span.start), text, edits, offsets)
    if moved is None:
        return False
    fixed = apply_edits(text, edits, offsets) if new_text is None else new_text
    if "\r" not in fixed:  # a position of the fixed text is its line and column: no offsets
        start = fixed.rfind("\n", 0, moved) + 1
        where = Position(fixed.count("\n", 0, start), moved - start)
        return any(f.code == finding.code and f.span.start == where for f in found)
    new_offsets = Offsets(fixed)
    return any(f.code == finding.code and new_offsets(f.span.start) == moved for f in found)


def holds(
    text: str, offsets: Offsets, finding: Finding, fix: Fix, check: Check, *, text_parses: bool
) -> bool:
    """``fix``, applied alone to ``text`` (whose offsets are ``offsets``), leaves text that parses
    (where ``text`` did) and no longer holds ``finding``."""
    try:
        new_text = apply_edits(text, fix.edits, offsets)
    except OverlappingEdits:
        return False
    found, parsed = check(new_text)
    if text_parses and not parsed:
        return False
    return not found_again(text, fix.edits, finding, found, offsets=offsets, new_text=new_text)


def holding_fixes(
    text: str, findings: Sequence[Finding], check: Check, text_parses: bool = True
) -> list[Finding]:
    """``findings`` with only the fixes that hold (display-only fixes, never applied, are kept);
    each distinct fix is checked once. ``text_parses``: the checker read ``text`` whole."""
    known: dict[tuple[str, Position, tuple[Edit, ...]], bool] = {}
    offsets = None  # worked out once, at the first fix to hold against the text
    kept = []
    for finding in findings:
        fixes = []
        for fix in finding.fixes:
            if fix.applicability is Applicability.DISPLAY_ONLY:
                fixes.append(fix)
                continue
            key = (finding.code, finding.span.start, fix.edits)
            if key not in known:
                offsets = offsets or Offsets(text)
                known[key] = holds(text, offsets, finding, fix, check, text_parses=text_parses)
            if known[key]:
                fixes.append(fix)
        same = len(fixes) == len(finding.fixes)
        kept.append(finding if same else dataclasses.replace(finding, fixes=tuple(fixes)))
    return kept
