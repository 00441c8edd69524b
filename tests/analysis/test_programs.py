"""Held-out evaluation set: whole, realistic training programs, run under torch and checked.

``programs/buggy/*.py`` each hold exactly one ``# error: [rule-name]`` label: for EK001-EK004 the
backward-like call that raises the record's RuntimeError, in the innermost frame of the traceback
(inside a helper when the helper's backward is the one that raises: where a runtime error from a log
lands too); for EK005, the call that passes ``retain_graph=True`` on
every iteration (it never raises). ``programs/clean/*.py`` are correct programs that must run clean
and must get no finding at all.

Ground truth: every program runs once as ``__main__`` in one subprocess (the fixtures' harness,
tests/groundtruth/run_fixtures.py), so this process never imports torch. Checker: each buggy
program's finding must be exactly its labelled line with the label's code, and clean programs must
get nothing. The checker's known gaps are listed in ``KNOWN_GAPS`` and marked strict xfail, so the
suite stays green and a gap that closes shows up as an XPASS to remove from the list.

``h2_*`` programs were written without reading the checker; ``h3_*`` ones by the engineer who made
its fixes, after them, as new shapes of the same families (so they show generality, not blind recall).
A buggy program whose header cites a real report (forum thread, GitHub issue) is paired with its
corrected twin ``clean/<name>_fixed.py``, which applies the fix accepted there and asserts that it
trains; a program written before its report was looked for says so in its header ("Real report of
this mechanism: <URL>", with what the report shows) and has no twin; a program whose mechanism no
public report was found for is a rule fixture instead (``tests/analysis/fixtures``); ``clean/neg_*``
programs are negatives for the false-error mechanisms listed in issue 13.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tokenize
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import ClassVar

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.registry import BY_CODE, BY_NAME, RULES, SECOND_BACKWARD_RECORD
from errknow_ls.kb import KnowledgeBase
from tests.groundtruth.run_fixtures import CASE_PREFIX, MODULE_RUN, Report, Run, run_in_subprocess

PROGRAMS = Path(__file__).resolve().parent / "programs"
BUGGY, CLEAN = "buggy", "clean"
DEAD_END = BY_NAME["retain-graph-in-loop"].code
RAISING = tuple(rule.code for rule in RULES if rule.raises)
SAVED_READ = BY_NAME["saved-tensor-after-free"].code
MINIMUM_PER_FAMILY = dict.fromkeys(RAISING, 9) | {DEAD_END: 6, SAVED_READ: 0}
"""Whole training programs per rule. Reads of saved tensors after a backward happen in code that
inspects a graph, not in training loops: that rule's labels are PyTorch's own tests (``peer/``)."""
MINIMUM_RAISING_PROGRAMS = 40
MINIMUM_CLEAN_PROGRAMS = 40
LINES = range(40, 151)
LABEL = re.compile(r"#\s*error\b")
ERROR_LABEL = re.compile(r"# error: \[(?P<rule>[a-z0-9-]+)\]$")

# The checker's known gaps on this set: program -> what goes wrong (strict xfail; delete when fixed).
KNOWN_GAPS: dict[str, str] = {
    "buggy/mmcv_runner_cumulative_hook_beside_optimizer_hook.py": "missed: the hooks built from"
    " config dicts (`HOOKS[cfg.pop('type')](**cfg)`) and called as `getattr(hook, fn_name)(self)`"
    " are not resolved, so the two hooks' backwards of one loss are not seen",
}

REPORT_LINE = r"^(?:# )?Reports?: .*https?://"
WRITTEN_FROM_REPORT = re.compile(REPORT_LINE, re.MULTILINE)
"""A header line opening with ``Report: <URL>``: the program was written from that report."""
CITES_REPORT = re.compile(rf"Real report of this mechanism: https?://|{REPORT_LINE}", re.MULTILINE)
"""Either form: written from the report, or one found after it was written."""

requires_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason=f"torch is not importable by {sys.executable}; `make test` installs it",
)


@dataclass
class Program:
    path: Path
    label_comment: ClassVar[re.Pattern[str]] = LABEL
    """Which comments are labels (well formed or not)."""

    @property
    def id(self) -> str:
        return self.path.relative_to(PROGRAMS).as_posix()

    @property
    def buggy(self) -> bool:
        return self.path.parent.name == BUGGY

    @cached_property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @cached_property
    def header(self) -> str:
        """What comes before the first statement: the module docstring and leading comments."""
        body = self.tree.body
        statements = body[1:] if ast.get_docstring(self.tree) is not None else body
        end = statements[0].lineno - 1 if statements else None
        return "\n".join(self.text.splitlines()[:end])

    @cached_property
    def tree(self) -> ast.Module:
        return ast.parse(self.text, filename=str(self.path))

    @cached_property
    def comments(self) -> dict[int, str]:
        """Comments that look like labels, by 1-based line."""
        with self.path.open("rb") as source:
            return {
                token.start[0]: token.string.rstrip()
                for token in tokenize.tokenize(source.readline)
                if token.type == tokenize.COMMENT and self.label_comment.match(token.string)
            }

    @cached_property
    def labels(self) -> dict[int, str]:
        """1-based line -> rule code, for every well-formed label."""
        found = {}
        for line, text in self.comments.items():
            match = ERROR_LABEL.match(text)
            if match and match["rule"] in BY_NAME:
                found[line] = BY_NAME[match["rule"]].code
        return found

    @property
    def code(self) -> str | None:
        return next(iter(self.labels.values()), None)

    @property
    def raises(self) -> bool:
        return self.buggy and self.code is not None and BY_CODE[self.code].raises

    @cached_property
    def call_ends(self) -> dict[int, int]:
        """For every line where a call starts, the last line of the longest call starting there."""
        ends: dict[int, int] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                end = node.end_lineno or node.lineno
                ends[node.lineno] = max(end, ends.get(node.lineno, end))
        return ends

    def labels_hit(self, run: Run) -> set[int]:
        return self.lines_hit(run, set(self.labels))

    def lines_hit(self, run: Run, lines: set[int]) -> set[int]:
        """The lines (each the first line of a call) that a frame of the run's traceback lies in."""
        return {
            line
            for line in lines
            for frame in run.frames
            if line <= frame.line <= self.call_ends.get(line, line)
        }


def load(kind: str) -> list[Program]:
    return [Program(path) for path in sorted((PROGRAMS / kind).glob("*.py"))]


BUGGY_PROGRAMS = load(BUGGY)
CLEAN_PROGRAMS = load(CLEAN)
ALL_PROGRAMS = [*BUGGY_PROGRAMS, *CLEAN_PROGRAMS]


def param(program: Program) -> object:
    return pytest.param(program, id=program.id)


def checker_param(program: Program) -> object:
    gap = KNOWN_GAPS.get(program.id)
    marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
    return pytest.param(program, id=program.id, marks=marks)


# --- the set itself (no torch needed) ---------------------------------------------------------


def test_the_set_is_large_enough_and_spread_over_the_families() -> None:
    per_code = dict.fromkeys(MINIMUM_PER_FAMILY, 0)
    for program in BUGGY_PROGRAMS:
        if program.code is not None:
            per_code[program.code] += 1
    short = {code: n for code, n in per_code.items() if n < MINIMUM_PER_FAMILY[code]}
    assert not short, f"too few programs: {short} (want {MINIMUM_PER_FAMILY})"
    assert sum(per_code[code] for code in RAISING) >= MINIMUM_RAISING_PROGRAMS
    assert len(CLEAN_PROGRAMS) >= MINIMUM_CLEAN_PROGRAMS


@pytest.mark.parametrize("program", [param(p) for p in BUGGY_PROGRAMS])
def test_buggy_program_cites_a_real_report(program: Program) -> None:
    assert CITES_REPORT.search(program.header) is not None, (
        "cite the public report of this mechanism in the header (`Report: <URL>`); a program no report"
        " was found for is a rule fixture (tests/analysis/fixtures), not a labelled program"
    )


def test_programs_written_from_a_report_have_their_corrected_twin() -> None:
    written_from_report = {p.path.stem for p in BUGGY_PROGRAMS if WRITTEN_FROM_REPORT.search(p.header)}
    twins = {p.path.stem.removesuffix("_fixed") for p in CLEAN_PROGRAMS if p.path.stem.endswith("_fixed")}
    assert sorted(written_from_report - twins) == [], "missing clean/<name>_fixed.py"
    assert sorted(twins - written_from_report) == [], "a `_fixed` twin of no program written from a report"


def test_no_stray_files() -> None:
    stray = sorted(
        p.relative_to(PROGRAMS).as_posix()
        for p in PROGRAMS.rglob("*.py")
        if p.parent.parent != PROGRAMS or p.parent.name not in {BUGGY, CLEAN}
    )
    assert not stray, f"programs belong directly in buggy/ or clean/: {stray}"
    names = [p.path.name for p in ALL_PROGRAMS]
    assert len(names) == len(set(names)), "a name is used in both buggy/ and clean/"


@pytest.mark.parametrize("program", [param(p) for p in ALL_PROGRAMS])
def test_program_is_well_formed(program: Program) -> None:
    lines = len(program.text.splitlines())
    assert lines in LINES, f"{lines} lines; whole programs are {LINES.start}-{LINES.stop - 1} lines"
    malformed = {line: text for line, text in program.comments.items() if line not in program.labels}
    assert not malformed, f"write `# error: [rule-name]` exactly: {malformed}"
    if program.buggy:
        assert len(program.labels) == 1, f"a buggy program has exactly one bug: {program.labels}"
    else:
        assert not program.labels, "clean programs carry no label"
    not_calls = sorted(line for line in program.labels if line not in program.call_ends)
    assert not not_calls, f"`# error:` must sit on the first line of a call: lines {not_calls}"
    cases = [
        node.name
        for node in program.tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith(CASE_PREFIX)
    ]
    assert not cases, f"the harness would also run {cases} on their own: rename them"


@pytest.mark.parametrize("program", [param(p) for p in BUGGY_PROGRAMS if p.code == DEAD_END])
def test_dead_end_labels_pass_retain_graph_true(program: Program) -> None:
    retaining = {
        node.lineno
        for node in ast.walk(program.tree)
        if isinstance(node, ast.Call)
        and any(
            keyword.arg == "retain_graph"
            and isinstance(keyword.value, ast.Constant)
            and keyword.value.value is True
            for keyword in node.keywords
        )
    }
    assert set(program.labels) <= retaining


# --- what torch does with them ----------------------------------------------------------------


@pytest.fixture(scope="module")
def report() -> Report:
    # One process runs every program (~440 of them); on a shared, loaded machine that can take
    # many minutes, so the harness gets more than its default 300 s before it is called hung.
    return run_in_subprocess([program.path for program in ALL_PROGRAMS], timeout=1800.0)


@pytest.fixture(scope="module")
def runs(report: Report) -> dict[str, Run]:
    return {run.path: run for run in report.runs if run.name == MODULE_RUN}


@pytest.fixture(scope="module")
def knowledge_base() -> KnowledgeBase:
    return KnowledgeBase.load()


def describe(run: Run) -> str:
    if not run.raised:
        return "ran clean"
    where = ", ".join(f"{frame.function}:{frame.line}" for frame in run.frames) or "outside the file"
    return f"raised {run.exc_type} at [{where}]: {run.message}"


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("program", [param(p) for p in ALL_PROGRAMS])
def test_run_agrees_with_label(program: Program, runs: dict[str, Run], knowledge_base: KnowledgeBase) -> None:
    run = runs.get(str(program.path))
    assert run is not None, "the harness did not run it"
    if not program.raises:
        assert not run.raised, describe(run)
        return
    assert run.raised, f"labelled line {sorted(program.labels)} should raise, but it {describe(run)}"
    recorded = run.exc_type == "RuntimeError" and any(
        match.record.id == SECOND_BACKWARD_RECORD for match in knowledge_base.match(run.message or "")
    )
    assert recorded, f"not the record's error: {describe(run)}"
    assert program.labels_hit(run) == set(program.labels), f"not raised at the label: {describe(run)}"


@requires_torch
@pytest.mark.torch
def test_report_is_from_the_pinned_torch(report: Report) -> None:
    assert report.torch_version.startswith("2.13"), report.torch_version


# --- what the checker finds -------------------------------------------------------------------


@pytest.mark.parametrize("program", [checker_param(p) for p in ALL_PROGRAMS])
def test_checker_finds_exactly_the_label(program: Program) -> None:
    result = check_source(program.text)
    assert result.errors == []
    found = {(f.span.start.line + 1, f.code) for f in result.findings}
    assert found == set(program.labels.items())


def test_known_gaps_name_existing_programs() -> None:
    unknown = sorted(set(KNOWN_GAPS) - {p.id for p in ALL_PROGRAMS})
    assert not unknown, f"KNOWN_GAPS lists programs that do not exist: {unknown}"
