"""``errknow-ls explain`` names the right record for real captures of every record's error: each
reproduction runs as a script (its ``__main__`` block runs its first variant), its terminal output
goes to a log, and the real command reads all the logs at once."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from errknow_ls.kb import KnowledgeBase
from tests.support import REPRODUCED_IDS

from .test_repros import repro_path

PARALLEL = 4
TIMEOUT_SECONDS = 120.0

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(
        importlib.util.find_spec("torch") is None,
        reason=f"torch is not importable by {sys.executable}; `make test` installs it",
    ),
]


def _capture(rid: str, workdir: Path) -> tuple[Path, int]:
    """Run one reproduction as a script, its stdout and stderr into one log as a terminal shows them."""
    log = workdir / f"{rid.split('/', 1)[1]}.log"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    with log.open("wb") as out:
        command = [sys.executable, str(repro_path(rid))]
        done = subprocess.run(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=workdir,
            env=env,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    return log, done.returncode


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, int]]:
    workdir = tmp_path_factory.mktemp("repro-captures")
    with ThreadPoolExecutor(PARALLEL) as pool:
        results = pool.map(lambda rid: _capture(rid, workdir), REPRODUCED_IDS)
        return dict(zip(REPRODUCED_IDS, results, strict=True))


@pytest.fixture(scope="module")
def explained(captures: dict[str, tuple[Path, int]]) -> dict[str, list[dict[str, Any]]]:
    logs = [str(log) for log, _ in captures.values()]
    command = [sys.executable, "-m", "errknow_ls", "explain", "--format", "json", *logs]
    done = subprocess.run(command, capture_output=True, check=False, timeout=120)
    assert done.returncode == 1, done.stderr.decode(errors="replace")
    by_source: dict[str, list[dict[str, Any]]] = {log: [] for log in logs}
    for item in json.loads(done.stdout):
        by_source[item["source"]].append(item)
    return by_source


@pytest.mark.parametrize("rid", REPRODUCED_IDS)
def test_explain_names_the_record_for_a_real_capture(
    rid: str, captures: dict[str, tuple[Path, int]], explained: dict[str, list[dict[str, Any]]]
) -> None:
    log, code = captures[rid]
    assert code == 1, (
        f"the reproduction should fail with a traceback:\n{log.read_text(errors='replace')[-2000:]}"
    )
    items = explained[str(log)]
    named = [item["record"] for item in items]
    assert rid in named, f"explain named {named} for:\n{log.read_text(errors='replace')[-2000:]}"
    # A capture may hold chained tracebacks (a DataLoader worker's death, then the loader's error);
    # each is explained by this record or by one its transition graph names, never by a stranger.
    record = KnowledgeBase.load().get(rid)
    assert record is not None
    graph = record.transition_graph
    neighbours = {rid, *graph.leads_to, *graph.preceded_by, *graph.frequently_confused_with}
    strangers = {name for name in named if name is not None} - neighbours
    assert not strangers, f"{strangers} explain tracebacks in {log.name}"
    last = items[-1]
    if last["record"] == rid:
        assert last["user_frame"] is not None
        assert last["user_frame"]["file"] == str(repro_path(rid))
