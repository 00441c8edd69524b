"""Golden fix pairs: ``check --fix --unsafe-fixes`` turns each ``fixes/*.in.py`` into its ``*.out.py``.

Every pair is a small realistic CPU program named ``ek00N_<what>``: its input has findings of rule
EK00N only. Under torch (through the ground-truth harness) every input raises the RuntimeError of
the rule's record, except EK005 inputs, which run (the dead end never raises), and every output
runs clean and trains as the pair's hand-written reference (``fixes/references/<name>.py``) does:
every parameter the optimizers own receives a gradient, and the trained parameters agree after the
same number of steps. An output the checker does not produce yet is written by hand and its pair marked
``KNOWN_WRONG`` (strict xfail), so the test starts passing, and fails, once the checker is right.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

from errknow_ls.analysis import RULES, check_source
from errknow_ls.analysis.registry import rule
from errknow_ls.analysis.rules.fix_evidence import PROVEN
from errknow_ls.cli import EXIT_OK, main
from errknow_ls.kb import KnowledgeBase
from tests.analysis.fix_evidence import proven
from tests.groundtruth.run_fixtures import MODULE_RUN, Run, run_in_subprocess
from tests.groundtruth.train_check import Training, problems
from tests.groundtruth.train_check import run_in_subprocess as train_in_subprocess

FIXES = Path(__file__).resolve().parent / "fixes"
INPUTS = sorted(FIXES.glob("*.in.py"))
OUTPUTS = sorted(FIXES.glob("*.out.py"))
NAME = re.compile(r"^(?P<code>ek\d{3})_[a-z0-9_]+$")
DEAD_END = "EK005"

KNOWN_WRONG: dict[str, str] = {}

requires_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason=f"torch is not importable by {sys.executable}; `make test` installs it",
)


def stem(path: Path) -> str:
    return path.name.removesuffix(".in.py").removesuffix(".out.py")


def golden(source: Path) -> Path:
    return source.with_name(f"{stem(source)}.out.py")


def code_of(path: Path) -> str:
    match = NAME.match(stem(path))
    assert match, f"{path.name}: name pairs ek00N_<what>.in.py / .out.py"
    return match["code"].upper()


def pair_param(source: Path) -> object:
    reason = KNOWN_WRONG.get(stem(source))
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(source, id=stem(source), marks=marks)


@pytest.mark.parametrize("source", [pair_param(p) for p in INPUTS])
def test_fix_turns_the_input_into_the_golden_output(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / source.name
    shutil.copyfile(source, work)
    code = main(["check", "--fix", "--unsafe-fixes", str(work)])
    out, err = capsys.readouterr()
    assert work.read_text(encoding="utf-8") == golden(source).read_text(encoding="utf-8"), err
    assert code == EXIT_OK, out


def test_every_input_has_its_output() -> None:
    assert {stem(p) for p in INPUTS} == {stem(p) for p in OUTPUTS}
    assert set(KNOWN_WRONG) <= {stem(p) for p in INPUTS}


@pytest.mark.parametrize("source", INPUTS, ids=stem)
def test_inputs_have_findings_of_their_rule_only(source: Path) -> None:
    findings = check_source(source.read_text(encoding="utf-8")).findings
    assert findings, "the input must have a finding to fix"
    assert {f.code for f in findings} == {code_of(source)}


def test_the_evidence_each_fix_cites_is_what_the_golden_pairs_prove() -> None:
    current = proven([p for p in INPUTS if stem(p) not in KNOWN_WRONG])
    assert current == PROVEN, "regenerate it: python -m tests.analysis.fix_evidence"
    assert sum(len(pairs) for pairs in PROVEN.values()) >= len(INPUTS) - len(KNOWN_WRONG) - 5


def test_pairs_cover_every_rule() -> None:
    assert {code_of(p) for p in INPUTS} == {r.code for r in RULES}


# --- ground truth: what torch does with the pairs ---------------------------------------------


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    report = run_in_subprocess([*INPUTS, *OUTPUTS])
    return {run.path: run for run in report.runs if run.name == MODULE_RUN}


@pytest.fixture(scope="module")
def knowledge_base() -> KnowledgeBase:
    return KnowledgeBase.load()


def describe(run: Run) -> str:
    if not run.raised:
        return "ran clean"
    return f"raised {run.exc_type} at lines {[f.line for f in run.frames]}: {run.message}"


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("source", INPUTS, ids=stem)
def test_input_raises_the_records_error(
    source: Path, runs: dict[str, Run], knowledge_base: KnowledgeBase
) -> None:
    run = runs[str(source)]
    code = code_of(source)
    if code == DEAD_END:
        assert not run.raised, describe(run)
        return
    assert run.raised and run.exc_type == "RuntimeError", describe(run)
    matched = {match.record.id for match in knowledge_base.match(run.message or "")}
    assert rule(code).record_id in matched, describe(run)


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("output", OUTPUTS, ids=stem)
def test_output_runs_clean(output: Path, runs: dict[str, Run]) -> None:
    run = runs[str(output)]
    assert not run.raised, describe(run)


# --- the fix trains: what the fixed program trains is what a hand-written reference trains ---------

REFERENCES = FIXES / "references"


def reference(source: Path) -> Path:
    return REFERENCES / f"{stem(source)}.py"


def test_every_pair_has_a_hand_written_reference() -> None:
    assert {p.stem for p in REFERENCES.glob("*.py")} == {stem(p) for p in INPUTS}


@pytest.fixture(scope="module")
def training() -> dict[str, Training]:
    return train_in_subprocess([*OUTPUTS, *(reference(p) for p in INPUTS)])


@requires_torch
@pytest.mark.torch
@pytest.mark.parametrize("source", INPUTS, ids=stem)
def test_the_fixed_program_trains_as_its_reference(source: Path, training: dict[str, Training]) -> None:
    """Every parameter the optimizers own receives a gradient, and after the same number of steps
    the parameters (hence the loss) equal those of the reference: a fix that silences the error but
    trains something else fails."""
    expected = training[str(reference(source).resolve())]
    assert problems(expected) == [], "the reference itself must train"
    assert problems(training[str(golden(source).resolve())], expected) == []


SILENCED = {
    # Issue 15: the model rebuilt inside the loop; it runs, and the optimizer owns none of the
    # parameters that make the loss.
    "ek002_model_class_passed_in": (
        "    for _ in range(steps):\n",
        "    for _ in range(steps):\n        net = net_cls(width)\n",
    ),
    # The dead end: retaining the stale graph runs, and trains on a forward pass that never changes.
    "ek002_output_before_loop": ("    loss.backward()", "    loss.backward(retain_graph=True)"),
}


@requires_torch
@pytest.mark.torch
def test_a_fix_that_only_silences_the_error_fails(tmp_path: Path) -> None:
    """The check itself can fail: programs that run clean but train the wrong thing are caught."""
    silenced = []
    for name, (old, new) in SILENCED.items():
        text = (FIXES / f"{name}.in.py").read_text(encoding="utf-8")
        assert text.count(old) == 1
        path = tmp_path / f"{name}.py"
        path.write_text(text.replace(old, new), encoding="utf-8")
        silenced.append((path, REFERENCES / f"{name}.py"))
    found = train_in_subprocess([p for pair in silenced for p in pair])
    for path, ref in silenced:
        run = found[str(path.resolve())]
        assert not run.raised, run.error
        assert problems(run, found[str(ref.resolve())]), path.name
