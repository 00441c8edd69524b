"""A fix is offered only where it holds: applied alone, the check of the result no longer finds its
finding where the fix moved it, and the result still parses. ``check --fix`` and the editor both
take the fixes ``check_source`` keeps, so neither offers what the other would drop."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.checker import read_whole
from errknow_ls.analysis.holding import found_again, holding_fixes
from errknow_ls.core import Applicability, Edit, Finding, Fix, Span, apply_edits

HERE = Path(__file__).parent
STORED_AFTER_BACKWARD = HERE.parent / "lsp" / "fixtures" / "code-actions" / "states_stored_after_backward.py"
PROGRAMS = HERE / "programs" / "buggy"

TWICE = textwrap.dedent(
    """\
    import torch

    w = torch.ones(2, requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    loss.backward()
    """
)
"""The second backward, line 5 (0-based), frees nothing new: EK001."""


def _found(text: str) -> list[Finding]:
    return check_source(text).findings


def _checked(text: str) -> tuple[list[Finding], bool]:
    result = check_source(text)
    return result.findings, read_whole(result)


def _fix(title: str, *edits: Edit) -> Fix:
    return Fix(title, Applicability.UNSAFE, edits)


def test_a_fix_that_leaves_the_error_or_breaks_the_syntax_is_dropped() -> None:
    (finding,) = _found(TWICE)
    assert finding.code == "EK001" and finding.span.start.line == 5
    comment = _fix("comment", Edit(Span.of(5, 0, 5, 0), "# second pass\n"))
    broken = _fix("broken", Edit(Span.of(5, 0, 5, 0), "if loss:\n"))
    removed = _fix("removed", Edit(Span.of(5, 0, 6, 0), ""))
    shown = Fix("shown", Applicability.DISPLAY_ONLY, ())
    given = dataclasses.replace(finding, fixes=(comment, broken, removed, shown))
    (kept,) = holding_fixes(TWICE, [given], _checked)
    assert [f.title for f in kept.fixes] == ["removed", "shown"]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_the_finding_is_found_again_where_an_edit_above_moved_it(newline: str) -> None:
    text = TWICE.replace("\n", newline)
    (finding,) = _found(text)
    header = (Edit(Span.of(0, 0, 0, 0), f"# header{newline}"),)
    assert found_again(text, header, finding, _found(apply_edits(text, header)))
    indented = (Edit(Span.of(5, 0, 5, 0), "if True: "),)  # the same line, further right
    assert found_again(text, indented, finding, _found(apply_edits(text, indented)))
    gone = (Edit(Span.of(5, 0, 6, 0), ""),)
    assert not found_again(text, gone, finding, _found(apply_edits(text, gone)))


def test_every_fix_offered_on_the_fixture_and_the_reported_programs_holds() -> None:
    """The fixture's first loop (a detach placed after the backward, above the store): no fix is
    offered there; in the two programs where ``check --fix`` used to drop the fix the editor offered
    (a detach that did not hold), only the fixes that hold are; every fix offered removes its
    finding."""
    paths = [
        STORED_AFTER_BACKWARD,
        PROGRAMS / "gflownet_per_step_update_reuses_previous_logprobs.py",
        PROGRAMS / "rl_dreamer_value_loss_on_imagined_trajectory.py",
    ]
    offered = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for finding in _found(text):
            offered[(path.name, finding.span.start.line + 1)] = [f.title for f in finding.fixes]
            for fix in finding.fixes:
                assert not found_again(text, fix.edits, finding, _found(apply_edits(text, fix.edits))), (
                    fix.title
                )
    assert offered == {
        (STORED_AFTER_BACKWARD.name, 19): [],
        (STORED_AFTER_BACKWARD.name, 30): [
            "Detach `state` at the start of each iteration",
            "Reset `state` at the start of each iteration",
        ],
        ("gflownet_per_step_update_reuses_previous_logprobs.py", 44): [
            "Sum `loss` over the loop's iterations and backward once after it"
        ],
        ("rl_dreamer_value_loss_on_imagined_trajectory.py", 61): [
            "Compute `values` again from detached inputs in the second loss and detach `returns` there"
        ],
    }
