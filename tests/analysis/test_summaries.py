"""Summaries of the project's own functions (``analysis/summaries.py``): worked out once per text of
the module that defines them, reused by every file that imports it and by the next process, and
never a finding more or less than running the function's body at each call gives.

Fixtures: the projects under ``projects/`` (``test_projects.py`` runs each under torch and holds
the checker to its labels); ``helpers_summarised`` has helpers that only compute their result
(``cut``, ``share``, ``same``) and one that backwards (``step``), imported by two scripts."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from errknow_ls.analysis import check_source
from errknow_ls.analysis.modules import digest
from errknow_ls.analysis.summaries import SUMMARIES
from errknow_ls.project.modules import ProjectModules
from errknow_ls.project.summaries import DiskSummaries
from tests.analysis.test_projects import PROJECTS, labels

HELPERS = PROJECTS / "helpers_summarised"
EVERY_FILE = sorted(PROJECTS.glob("*/*.py")) + sorted(PROJECTS.glob("*/*/*.py"))


@pytest.fixture(autouse=True)
def fresh_memo() -> Iterator[None]:
    SUMMARIES.clear()
    yield
    SUMMARIES.enabled = True
    SUMMARIES.clear()


def check(path: Path) -> list[tuple[int, str]]:
    result = check_source(path.read_text(encoding="utf-8"), modules=ProjectModules.for_file(path))
    assert result.errors == []
    return [(f.span.start.line + 1, f.code) for f in result.findings]


def test_the_helpers_are_summarised_once_for_both_files_that_import_them() -> None:
    train, evaluate = HELPERS / "train.py", HELPERS / "evaluate.py"
    assert check(train) == sorted(labels(train).items())
    worked = dict(SUMMARIES.stats.worked_out_for)
    applied = SUMMARIES.stats.applied
    assert {name.rpartition(":")[2] for name in worked} == {"same", "share"}
    assert applied > 0  # `share` answered from its summary; `same` makes a node: its verdict is inline
    assert SUMMARIES.stats.because["its verdict is inline"] > 0
    assert check(evaluate) == []
    after = SUMMARIES.stats.worked_out_for
    assert {k: v for k, v in after.items() if k in worked} == worked  # nothing worked out again
    assert {name.rpartition(":")[2] for name in after.keys() - worked.keys()} == {"cut"}
    assert SUMMARIES.stats.applied > applied


@pytest.mark.parametrize("path", EVERY_FILE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_summaries_change_no_finding(path: Path) -> None:
    """Every file of every project, checked with summaries and with every call run: the same
    findings, compared whole (message, place, notes, fixes)."""
    text, modules = path.read_text(encoding="utf-8"), ProjectModules.for_file(path)
    SUMMARIES.enabled = False
    inlined = check_source(text, modules=modules)
    SUMMARIES.enabled = True
    summarised = check_source(text, modules=ProjectModules.for_file(path))
    assert summarised.findings == inlined.findings
    assert summarised.errors == inlined.errors


def test_a_helper_that_writes_an_attribute_runs_at_each_call() -> None:
    """``keep(box, out)`` stores the graph on ``box``: no summary, the body runs, and the finding on
    the backward keeps its notes (the statement that built the graph, the backward that freed it)."""
    entry = PROJECTS / "helper_writes_an_attribute" / "train.py"
    result = check_source(entry.read_text(encoding="utf-8"), modules=ProjectModules.for_file(entry))
    (finding,) = result.findings
    assert (finding.span.start.line + 1, finding.code) == next(iter(labels(entry).items()))
    assert finding.related
    assert SUMMARIES.stats.applied == 0
    assert SUMMARIES.stats.because == {"its body reaches past its names": SUMMARIES.stats.inlined}


def test_a_helper_that_backwards_runs_at_each_call() -> None:
    """``step(loss, opt)`` backwards: the finding on the call points into the helper."""
    entry = HELPERS / "train.py"
    result = check_source(entry.read_text(encoding="utf-8"), modules=ProjectModules.for_file(entry))
    (finding,) = result.findings
    assert finding.raises_elsewhere is not None
    assert any(r.path is not None and Path(r.path).name == "utils.py" for r in finding.related)


CHECK_IN_A_PROCESS = """
import json, sys
from pathlib import Path
from errknow_ls.analysis.summaries import SUMMARIES
from errknow_ls.project.rules import RuleSelection
from errknow_ls.runner.engine import FileJob, check_file

path, cache = Path(sys.argv[1]), Path(sys.argv[2])
result = check_file(FileJob(path, RuleSelection(), summaries=cache))
found = [(f.span.start.line + 1, f.code) for f in result.findings]
stats = SUMMARIES.stats
print(json.dumps({"found": found, "worked_out": stats.worked_out, "loaded": stats.loaded}))
"""


def test_summaries_are_kept_beside_the_results_cache_for_the_next_process(tmp_path: Path) -> None:
    cache = tmp_path / "cache"

    def run() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", CHECK_IN_A_PROCESS, str(HELPERS / "evaluate.py"), str(cache)],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        said: dict[str, object] = json.loads(done.stdout)
        return said

    first, second = run(), run()
    assert first["found"] == second["found"] == []
    assert first["worked_out"] and not first["loaded"]
    assert second["worked_out"] == 0 and second["loaded"]
    kept = DiskSummaries(cache).load(digest((HELPERS / "utils.py").read_text(encoding="utf-8")))
    by_name: dict[str, set[str]] = {}
    for key, encoded in kept.items():
        name = key.partition("|")[0].rpartition(":")[2]
        by_name.setdefault(name, set()).add(json.dumps(json.loads(encoded)[0]))
    assert by_name == {"cut": {'["detached"]'}, "share": {'["number"]'}, "same": {'"inline"'}}
