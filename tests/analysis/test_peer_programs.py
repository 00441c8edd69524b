"""PyTorch's own tests as labels (issue 13, "What a peer's test suite shows").

``peer/*.py`` are small programs rewritten from tests in pytorch/pytorch (``test/test_autograd.py``,
``test/test_utils.py``) that assert the record's error ("Trying to backward through the graph a second
time", or its saved-tensor form), and from the tests beside them that run clean: labels written by
torch's developers, not by us. Each cites its test by URL and name in its header comment. A label,
``# error: [rule-name]``, sits on the first line of the call that raises: a backward or
``autograd.grad`` call, or a read of a saved tensor (``grad_fn._saved_*``, ``saved_tensors``) after its
graph was freed (``saved-tensor-after-free``). The checker must report exactly that line, with that
rule; a program without a label runs clean and must get no finding.

Ground truth: every program runs once under torch 2.13 in one subprocess (tests/groundtruth/
run_fixtures.py); it must raise the record's error exactly at its label, or run clean without one.
The checker's misses on this set are ``KNOWN_GAPS`` (strict xfail): the suite stays green, and a gap
that closes shows up as an XPASS to remove from the list.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.registry import BY_NAME, SECOND_BACKWARD_RECORD
from errknow_ls.kb import KnowledgeBase
from tests.analysis.test_programs import ERROR_LABEL, Program, describe, requires_torch
from tests.groundtruth.run_fixtures import MODULE_RUN, Run, run_in_subprocess

PEER = Path(__file__).resolve().parent / "peer"
CITATION = re.compile(r"https://github\.com/pytorch/pytorch/blob/[0-9a-f]{40}/test/\S+\.py")
TEST_NAME = re.compile(r"\bTest\w*\.test_\w+")

# The checker's misses on this set: program -> what goes wrong (strict xfail; delete when fixed).
KNOWN_GAPS: dict[str, str] = {}


class PeerProgram(Program):
    @property
    def id(self) -> str:
        return self.path.name

    @property
    def buggy(self) -> bool:
        return bool(self.labels)


PROGRAMS = [PeerProgram(path) for path in sorted(PEER.glob("*.py"))]


def param(program: PeerProgram) -> object:
    gap = KNOWN_GAPS.get(program.id)
    marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
    return pytest.param(program, id=program.id, marks=marks)


def test_the_set_holds_raising_and_clean_programs() -> None:
    assert sum(bool(p.labels) for p in PROGRAMS) >= 3
    assert sum(p.code == BY_NAME["saved-tensor-after-free"].code for p in PROGRAMS) >= 3
    assert sum(not p.buggy for p in PROGRAMS) >= 10


@pytest.mark.parametrize("program", [pytest.param(p, id=p.id) for p in PROGRAMS])
def test_peer_program_is_well_formed(program: PeerProgram) -> None:
    header = "\n".join(program.text.splitlines()[:3])
    assert CITATION.search(header), "the first lines cite the test file by a pinned GitHub URL"
    assert TEST_NAME.search(header), "the first lines name the test (TestClass.test_name)"
    malformed = {
        line: text
        for line, text in program.comments.items()
        if not (ERROR_LABEL.match(text) and line in program.labels)
    }
    assert not malformed, f"write `# error: [rule-name]`: {malformed}"
    assert len(set(program.labels)) <= 1, f"one raising call a program: {sorted(set(program.labels))}"
    not_calls = sorted(line for line in set(program.labels) if line not in program.call_ends)
    assert not not_calls, f"a label must sit on the first line of a call: lines {not_calls}"


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    report = run_in_subprocess([program.path for program in PROGRAMS])
    assert report.torch_version.startswith("2.13"), report.torch_version
    return {run.path: run for run in report.runs if run.name == MODULE_RUN}


@pytest.fixture(scope="module")
def knowledge_base() -> KnowledgeBase:
    return KnowledgeBase.load()


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("program", [pytest.param(p, id=p.id) for p in PROGRAMS])
def test_peer_label_agrees_with_torch(
    program: PeerProgram, runs: dict[str, Run], knowledge_base: KnowledgeBase
) -> None:
    run = runs.get(str(program.path))
    assert run is not None, "the harness did not run it"
    if not program.buggy:
        assert not run.raised, describe(run)
        return
    assert run.raised, f"labelled line {sorted(set(program.labels))} should raise, but it {describe(run)}"
    recorded = run.exc_type == "RuntimeError" and any(
        match.record.id == SECOND_BACKWARD_RECORD for match in knowledge_base.match(run.message or "")
    )
    assert recorded, f"not the record's error: {describe(run)}"
    hit = program.lines_hit(run, set(program.labels))
    assert hit == set(program.labels), f"not raised at the label: {describe(run)}"


@pytest.mark.parametrize("program", [param(p) for p in PROGRAMS])
def test_checker_finds_exactly_the_error_label(program: PeerProgram) -> None:
    result = check_source(program.text)
    assert result.errors == []
    found = {(f.span.start.line + 1, f.code) for f in result.findings}
    assert found == set(program.labels.items())


def test_known_gaps_name_existing_programs() -> None:
    unknown = sorted(set(KNOWN_GAPS) - {p.id for p in PROGRAMS})
    assert not unknown, f"KNOWN_GAPS lists programs that do not exist: {unknown}"
