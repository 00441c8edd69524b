"""The fix loop: apply every applicable preferred fix that does not collide, re-check, repeat.

The check only offers fixes that hold on their own (``errknow_ls.analysis.holding``); fixes applied
together may still not hold, by the same test: a finding found again where the round's edits moved
it. That round is undone, the fix is left out and reported, and the finding's next applicable fix,
if it has one, is tried in the next round, so that checking again never finds what ``--fix`` says it
fixed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from errknow_ls.analysis.holding import breaks_parsing, found_again
from errknow_ls.core import Applicability, Edit, Finding, Fix, OverlappingEdits, apply_edits
from errknow_ls.core.edits import Offsets, shift

MAX_ROUNDS = 10
"""As in ruff: fixes that keep producing new fixable findings stop here."""

CheckFunction = Callable[[str], tuple[list[Finding], list[str]]]
Key = tuple[str, int]
"""A finding in one text: its code and the offset where it starts."""


def applicable(fix: Fix | None, unsafe: bool) -> bool:
    """Whether ``--fix`` applies ``fix`` (display-only fixes never are)."""
    if fix is None:
        return False
    return fix.applicability is Applicability.SAFE or (unsafe and fix.applicability is Applicability.UNSAFE)


def hidden(fix: Fix | None, unsafe: bool) -> bool:
    """An unsafe fix that ``--unsafe-fixes`` would enable."""
    return fix is not None and not unsafe and fix.applicability is Applicability.UNSAFE


def key(offsets: Offsets, finding: Finding) -> Key:
    return finding.code, offsets(finding.span.start)


@dataclass(slots=True)
class Chosen:
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    """Findings these edits fix (a fix identical to a chosen one counts, and adds nothing)."""
    fixes: list[Fix] = field(default_factory=list)
    """The fix chosen for each of ``findings``."""


def choose(
    text: str, findings: Sequence[Finding], unsafe: bool, failed: Mapping[Key, int] | None = None
) -> Chosen:
    """The preferred fixes to apply together, in finding order, leaving out any that overlap; for a
    finding whose first ``failed[key]`` fixes did not remove it, the next one, when applicable."""
    offsets, failed = Offsets(text), failed or {}
    chosen = Chosen()
    for finding in findings:
        tried = failed.get(key(offsets, finding), 0)
        fix = finding.fixes[tried] if tried < len(finding.fixes) else None
        if fix is None or not applicable(fix, unsafe):
            continue
        new = [edit for edit in dict.fromkeys(fix.edits) if edit not in chosen.edits]
        try:
            apply_edits(text, [*chosen.edits, *new])
        except OverlappingEdits:
            continue
        chosen.edits.extend(new)
        chosen.findings.append(finding)
        chosen.fixes.append(fix)
    return chosen


@dataclass(frozen=True, slots=True)
class FixOutcome:
    text: str
    fixed: int
    findings: list[Finding]
    """What the last check of ``text`` found."""
    errors: list[str]
    """The last check's errors (syntax errors, internal errors)."""
    warnings: list[str]
    fixed_codes: tuple[str, ...] = ()
    """The code of each finding fixed, in the order fixed."""


def fix_until_stable(text: str, check: CheckFunction, unsafe: bool) -> FixOutcome:
    """Apply fixes in rounds until nothing applicable is left (or ``MAX_ROUNDS``)."""
    findings, errors = check(text)
    fixed_codes: list[str] = []
    rounds = 0
    problems: list[str] = []
    failed: dict[Key, int] = {}
    while rounds < MAX_ROUNDS:
        chosen = choose(text, findings, unsafe, failed)
        if not chosen.edits and not chosen.findings:
            break
        offsets = Offsets(text)
        new_text = apply_edits(text, chosen.edits, offsets)
        if breaks_parsing(text, new_text):
            problems.append("the fixes would introduce a syntax error; they were not applied")
            break
        new_findings, new_errors = check(new_text)
        stuck = _not_fixed(text, offsets, new_text, chosen, new_findings)
        if stuck:
            for finding, fix in stuck:
                stuck_key = key(offsets, finding)
                failed[stuck_key] = failed.get(stuck_key, 0) + 1
                problems.append(_describe_stuck(finding, fix))
            continue
        failed = _carried(failed, text, offsets, chosen.edits)
        text, findings, errors = new_text, new_findings, new_errors
        fixed_codes += [finding.code for finding in chosen.findings]
        rounds += 1
    if rounds == MAX_ROUNDS and choose(text, findings, unsafe, failed).findings:
        problems.append(f"fixes were still applicable after {MAX_ROUNDS} rounds; stopped there")
    return FixOutcome(text, len(fixed_codes), findings, errors, problems, tuple(fixed_codes))


def _not_fixed(
    text: str, offsets: Offsets, new_text: str, chosen: Chosen, found: Sequence[Finding]
) -> list[tuple[Finding, Fix]]:
    """Chosen findings (with the fix chosen) that the fixes applied together (``text`` became
    ``new_text``) did not remove."""
    return [
        (finding, fix)
        for finding, fix in zip(chosen.findings, chosen.fixes, strict=True)
        if found_again(text, chosen.edits, finding, found, offsets=offsets, new_text=new_text)
    ]


def _carried(failed: dict[Key, int], text: str, offsets: Offsets, edits: Sequence[Edit]) -> dict[Key, int]:
    carried = {}
    for (code, offset), count in failed.items():
        moved = shift(offset, text, edits, offsets)
        if moved is not None:
            carried[(code, moved)] = count
    return carried


def _describe_stuck(finding: Finding, fix: Fix) -> str:
    start = finding.span.start
    title = fix.title
    return (
        f"{start.line + 1}:{start.character + 1}: {finding.code}: the fix did not remove the finding, "
        f"so it was not applied ({title})"
    )
