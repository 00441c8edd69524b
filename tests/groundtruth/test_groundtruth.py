"""Ground truth by execution: every fixture label is checked against what torch 2.13 really does.

A ``# error: [rule]`` line of a raising rule (EK001-EK004) must be where a run raised the
RuntimeError of the shipped record; no run may raise anywhere else; negatives, the dead-end rule
(EK005, which never raises) and fixed outputs (``tests/analysis/fixes/**/*.out.py``) run clean.
All files run in one subprocess (tests/groundtruth/run_fixtures.py) so this process never imports torch.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pytest

from errknow_ls.analysis.registry import RULES as REGISTRY
from errknow_ls.analysis.registry import SECOND_BACKWARD_RECORD as RECORD_ID
from errknow_ls.kb import KnowledgeBase

from .run_fixtures import CASE_PREFIX, MODULE_RUN, Report, Run, run_in_subprocess

TESTS = Path(__file__).resolve().parents[1]
FIXTURES = TESTS / "analysis" / "fixtures"
FIXES = TESTS / "analysis" / "fixes"
NEGATIVES = "negatives"
FIX_OUTPUT = "fix-output"

RULES = {rule.code: rule.name for rule in REGISTRY}
DEAD_END_RULE = RULES["EK005"]  # the record's dead end: labelled, but never raises
RAISING_RULES = frozenset(RULES.values()) - {DEAD_END_RULE}
# The corpus must not shrink below what the brief asks for (labels per rule; cases for negatives).
MINIMUM_LABELS = dict.fromkeys(RAISING_RULES, 8) | {DEAD_END_RULE: 4}
MINIMUM_NEGATIVE_CASES = 40

ANNOTATION = re.compile(r"#\s*(error|ok)\b", re.IGNORECASE)
ERROR_LABEL = re.compile(r"# error: \[(?P<rule>[a-z0-9-]+)\](?:\s.*)?$")
OK_LABEL = re.compile(r"# ok: \S.*$")
DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)

requires_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason=f"torch is not importable by {sys.executable}; `make test` installs it",
)


@dataclass
class Fixture:
    path: Path
    kind: str  # a rule name, NEGATIVES or FIX_OUTPUT
    errors: dict[int, str] = field(default_factory=dict)
    oks: dict[int, str] = field(default_factory=dict)
    malformed: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.path.relative_to(TESTS / "analysis").as_posix()

    @property
    def runs_clean(self) -> bool:
        return self.kind in {NEGATIVES, FIX_OUTPUT, DEAD_END_RULE}

    @cached_property
    def tree(self) -> ast.Module:
        return ast.parse(self.path.read_text(encoding="utf-8"), filename=str(self.path))

    @cached_property
    def cases(self) -> dict[str, tuple[int, int]]:
        """Top-level ``case_*`` functions and the lines they span."""
        return {
            node.name: (node.lineno, node.end_lineno or node.lineno)
            for node in self.tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith(CASE_PREFIX)
        }

    @cached_property
    def call_ends(self) -> dict[int, int]:
        """For every line where a call starts, the last line of the longest call starting there."""
        ends: dict[int, int] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                end = node.end_lineno or node.lineno
                ends[node.lineno] = max(end, ends.get(node.lineno, end))
        return ends

    @property
    def raising_labels(self) -> set[int]:
        return {line for line, rule in self.errors.items() if rule in RAISING_RULES}

    def run_names(self) -> list[str]:
        return [MODULE_RUN, *self.cases]

    def labels_expected_in(self, run_name: str) -> set[int]:
        """Raising labels written in the body of this run itself (a case, or a straight-line script)."""
        if run_name == MODULE_RUN:
            return set() if self.cases else self.raising_labels
        first, last = self.cases[run_name]
        return {line for line in self.raising_labels if first <= line <= last}

    def labels_hit(self, run: Run) -> set[int]:
        """Raising labels whose call contains a traceback frame of this run."""
        return {
            line
            for line in self.raising_labels
            for frame in run.frames
            if line <= frame.line <= self.call_ends.get(line, line)
        }


def read_fixture(path: Path, kind: str) -> Fixture:
    fixture = Fixture(path, kind)
    with path.open("rb") as source:
        for token in tokenize.tokenize(source.readline):
            if token.type != tokenize.COMMENT or not ANNOTATION.match(token.string):
                continue
            line, text = token.start[0], token.string.rstrip()
            error, ok = ERROR_LABEL.match(text), OK_LABEL.match(text)
            if error:
                fixture.errors[line] = error["rule"]
            elif ok:
                fixture.oks[line] = text.removeprefix("# ok: ")
            else:
                fixture.malformed.append(f"line {line}: {text!r}")
    return fixture


# The labelled corpus; and the checker's fixed outputs, which need no labels, only to run clean.
FIXTURE_FILES = [read_fixture(path, path.parent.name) for path in sorted(FIXTURES.glob("*/*.py"))]
FIX_OUTPUTS = [read_fixture(path, FIX_OUTPUT) for path in sorted(FIXES.rglob("*.out.py"))]
RUN_UNITS = [(f, name) for f in [*FIXTURE_FILES, *FIX_OUTPUTS] for name in f.run_names()]
RAISING_FILES = [fixture for fixture in FIXTURE_FILES if not fixture.runs_clean]


def file_param(fixture: Fixture) -> object:
    return pytest.param(fixture, id=fixture.id)


def run_param(fixture: Fixture, name: str) -> object:
    return pytest.param(fixture, name, id=f"{fixture.id}::{name}")


def describe(run: Run) -> str:
    if not run.raised:
        return f"{run.name} ran clean"
    where = ", ".join(f"{frame.function}:{frame.line}" for frame in run.frames) or "outside the file"
    return f"{run.name} raised {run.exc_type} at [{where}]: {run.message}"


@pytest.fixture(scope="module")
def report() -> Report:
    return run_in_subprocess([fixture.path for fixture in [*FIXTURE_FILES, *FIX_OUTPUTS]])


@pytest.fixture(scope="module")
def runs(report: Report) -> dict[tuple[str, str], Run]:
    return report.by_key()


@pytest.fixture(scope="module")
def knowledge_base() -> KnowledgeBase:
    kb = KnowledgeBase.load()
    assert RECORD_ID in kb, f"the shipped records lack {RECORD_ID}"
    return kb


def is_recorded_error(run: Run, kb: KnowledgeBase) -> bool:
    if run.exc_type != "RuntimeError" or run.message is None:
        return False
    return any(match.record.id == RECORD_ID for match in kb.match(run.message))


def runs_of(fixture: Fixture, runs: dict[tuple[str, str], Run]) -> Iterator[Run]:
    for name in fixture.run_names():
        run = runs.get((str(fixture.path), name))
        if run is not None:
            yield run


# --- the labels themselves (no torch needed) -------------------------------------------------


def test_fixture_directories_are_rules_or_negatives() -> None:
    known = {*RULES.values(), NEGATIVES}
    unknown = sorted({path.parent.name for path in FIXTURES.glob("*/*.py")} - known)
    assert not unknown, f"fixture directories that name no rule: {unknown}"
    stray = sorted(p.name for p in FIXTURES.glob("*.py")) + sorted(
        p.relative_to(FIXTURES).as_posix() for p in FIXTURES.glob("*/*/*.py")
    )
    assert not stray, f"fixtures belong directly in <rule-name>/ or negatives/: {stray}"


def test_corpus_covers_every_rule() -> None:
    labels = dict.fromkeys(RULES.values(), 0)
    for fixture in FIXTURE_FILES:
        for rule in fixture.errors.values():
            labels[rule] = labels.get(rule, 0) + 1
    short = {rule: count for rule, count in labels.items() if count < MINIMUM_LABELS[rule]}
    assert not short, f"too few labelled cases: {short} (want {MINIMUM_LABELS})"
    negative_cases = sum(len(fixture.cases) or 1 for fixture in FIXTURE_FILES if fixture.kind == NEGATIVES)
    assert negative_cases >= MINIMUM_NEGATIVE_CASES


@pytest.mark.parametrize("fixture", [file_param(f) for f in FIXTURE_FILES])
def test_annotations_are_well_formed(fixture: Fixture) -> None:
    assert not fixture.malformed, "write `# error: [rule-name]` or `# ok: <why>`"
    unknown = {rule for rule in fixture.errors.values() if rule not in RULES.values()}
    assert not unknown, f"unknown rule names: {unknown}"
    if fixture.kind in RULES.values():
        assert fixture.errors, "a rule's fixture needs at least one `# error:` line"
        others = {rule for rule in fixture.errors.values() if rule != fixture.kind}
        assert not others, f"labels of other rules in {fixture.kind}/: {others}"
    else:
        assert not fixture.errors, "negatives must carry no `# error:` label"
    not_calls = sorted(line for line in fixture.errors if line not in fixture.call_ends)
    assert not not_calls, f"`# error:` must sit on the first line of a call: lines {not_calls}"
    assert all(reason.strip() for reason in fixture.oks.values()), "`# ok:` needs a reason"


@pytest.mark.parametrize("fixture", [file_param(f) for f in FIXTURE_FILES])
def test_runs_have_at_most_one_raising_label(fixture: Fixture) -> None:
    if fixture.cases:
        loose = [type(node).__name__ for node in fixture.tree.body if not is_definition(node)]
        assert not loose, f"with case_* functions, module level may only define things: {loose}"
    for name in fixture.run_names():
        labels = fixture.labels_expected_in(name)
        assert len(labels) <= 1, f"{name} can raise only once, but labels lines {sorted(labels)}"


def is_definition(node: ast.stmt) -> bool:
    docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    return docstring or isinstance(node, DEFINITIONS)


@pytest.mark.parametrize(
    "fixture", [file_param(f) for f in FIXTURE_FILES if DEAD_END_RULE in f.errors.values()]
)
def test_dead_end_labels_pass_retain_graph_true(fixture: Fixture) -> None:
    retaining = {
        node.lineno
        for node in ast.walk(fixture.tree)
        if isinstance(node, ast.Call)
        and any(
            keyword.arg == "retain_graph"
            and isinstance(keyword.value, ast.Constant)
            and keyword.value.value is True
            for keyword in node.keywords
        )
    }
    labelled = {line for line, rule in fixture.errors.items() if rule == DEAD_END_RULE}
    assert labelled <= retaining, f"no retain_graph=True call on lines {sorted(labelled - retaining)}"


# --- what torch does with them ----------------------------------------------------------------


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize(("fixture", "name"), [run_param(f, n) for f, n in RUN_UNITS])
def test_run_agrees_with_labels(
    fixture: Fixture, name: str, runs: dict[tuple[str, str], Run], knowledge_base: KnowledgeBase
) -> None:
    run = runs.get((str(fixture.path), name))
    assert run is not None, f"{name} never ran: the module run failed ({describe_module(fixture, runs)})"
    if fixture.runs_clean:
        assert not run.raised, describe(run)
        return
    expected = fixture.labels_expected_in(name)
    if not run.raised:
        assert not expected, f"line {sorted(expected)} is labelled to raise, but {describe(run)}"
        return
    assert is_recorded_error(run, knowledge_base), f"not the record's error: {describe(run)}"
    hit = fixture.labels_hit(run)
    assert hit, f"raised on no `# error:` line: {describe(run)}"
    assert expected <= hit, f"labelled line {sorted(expected)} is not where it raised: {describe(run)}"


def describe_module(fixture: Fixture, runs: dict[tuple[str, str], Run]) -> str:
    module_run = runs.get((str(fixture.path), MODULE_RUN))
    return describe(module_run) if module_run else "not in the report"


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("fixture", [file_param(f) for f in RAISING_FILES])
def test_every_error_label_raises(
    fixture: Fixture, runs: dict[tuple[str, str], Run], knowledge_base: KnowledgeBase
) -> None:
    hit: set[int] = set()
    for run in runs_of(fixture, runs):
        if is_recorded_error(run, knowledge_base):
            hit |= fixture.labels_hit(run)
    missing = sorted(fixture.raising_labels - hit)
    assert not missing, f"labelled to raise, but no run raised there: lines {missing}"


@requires_torch
@pytest.mark.torch
def test_harness_runs_torch_2_13(report: Report) -> None:
    # No timing is asserted here: speed is measured in benchmarks/, not tested.
    assert report.torch_version.startswith("2.13"), report.torch_version
