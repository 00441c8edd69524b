"""Findings that offer no fix: every fix the analysis could build would run and train something else.

Each ``fixes/withheld/ek00N_<what>.py`` is a small CPU program with ``# error: [rule]`` on the
backward that raises. The checker reports exactly that line and offers no fix (fix_safety rule 10:
a cut that leaves a parameter an optimizer owns without any gradient, a loss term detached into a
constant, a replay memory emptied, a backward removed from the only loop that trains its
parameters), since what would make the program right (recomputing through a stateful step) is not
shown. Under torch, every program raises the record's error on the
labelled line.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.registry import BY_NAME, rule
from errknow_ls.kb import KnowledgeBase
from tests.groundtruth.run_fixtures import MODULE_RUN, Run, run_in_subprocess

WITHHELD = Path(__file__).resolve().parent / "fixes" / "withheld"
PROGRAMS = sorted(WITHHELD.glob("ek00*.py"))
ERROR = re.compile(r"#\s*error:\s*\[([a-z-]+)\]")

requires_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason=f"torch is not importable by {sys.executable}; `make test` installs it",
)


def labelled(path: Path) -> dict[int, str]:
    return {
        number: BY_NAME[match.group(1)].code
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if (match := ERROR.search(line))
    }


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_the_finding_is_on_the_labelled_line_and_offers_no_fix(path: Path) -> None:
    findings = check_source(path.read_text(encoding="utf-8")).findings
    assert {f.span.start.line + 1: f.code for f in findings} == labelled(path)
    assert [fix.title for f in findings for fix in f.fixes] == []


def test_every_program_is_named_for_its_rule() -> None:
    assert PROGRAMS
    for path in PROGRAMS:
        assert {code.lower() for code in labelled(path).values()} == {path.stem[:5]}


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    report = run_in_subprocess(PROGRAMS)
    return {run.path: run for run in report.runs if run.name == MODULE_RUN}


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_the_program_raises_the_records_error_on_the_labelled_line(path: Path, runs: dict[str, Run]) -> None:
    run = runs[str(path)]
    ((line, code),) = labelled(path).items()
    assert run.raised and run.exc_type == "RuntimeError", run.message
    assert line in [frame.line for frame in run.frames], run.frames
    matched = {match.record.id for match in KnowledgeBase.load().match(run.message or "")}
    assert rule(code).record_id in matched
