"""A document over ``ISOLATED_CHARS`` is checked in a process of its own, fed its text a piece at a
time: the same findings and diagnostics as a check in the server's process, and a newer version
stops the older one's process. A limit's note goes where it belongs."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from pathlib import Path

import pytest

from errknow_ls.lsp.checking import ISOLATED_CHARS, TEXT_CHUNK_BYTES, Analyzer, Checks, StaleCheck
from errknow_ls.lsp.snapshots import Part, Snapshot
from tests.lsp.session import BUGGY
from tests.lsp.test_importers import BACKWARD_LINE, CUTS, KEEPS, TRAIN, write_project
from tests.support import stopped_by_the_budget

URI = "file:///project/huge.py"
NOTEBOOK = "file:///project/train.ipynb"


def large_document() -> str:
    """Comments past the isolation threshold (non-ASCII ones across the pieces' boundaries), then a
    double backward."""
    line = "# é中文😋 " + "x" * 60 + "\n"
    padding = line * max(ISOLATED_CHARS // len(line), 2 * TEXT_CHUNK_BYTES // len(line.encode())) + line
    assert len(padding) > ISOLATED_CHARS and len(padding.encode()) > 2 * TEXT_CHUNK_BYTES
    return padding + BUGGY


async def test_a_large_document_is_checked_apart_as_it_would_be_here() -> None:
    text = large_document()
    snapshot = Snapshot.of_text(URI, 1, text)
    (isolated,) = await Checks().results(snapshot)
    (here,) = Analyzer().run(snapshot)
    assert isolated.findings == here.findings and len(here.findings) == 1
    assert isolated.diagnostics == here.diagnostics
    assert here.diagnostics[0].range.start.line == text.count("\n") - 1


async def test_a_large_document_apart_reads_the_open_modules_unsaved_texts(tmp_path: Path) -> None:
    """The editor's texts of the project's modules, the document's own among them, reach the
    checking process too (a piece at a time, the document's text once): the helper kept the
    graph in the editor, not on disk."""
    train, utils = write_project(tmp_path, CUTS)
    padding = "# padding\n" * (ISOLATED_CHARS // 10 + 1)
    text = padding + TRAIN
    unsaved = {os.path.realpath(train): text, os.path.realpath(utils): KEEPS}
    snapshot = Snapshot.of_text(train.as_uri(), 1, text, unsaved)
    (isolated,) = await Checks().results(snapshot)
    (here,) = Analyzer().run(snapshot)
    assert [d.range.start.line for d in isolated.diagnostics] == [padding.count("\n") + BACKWARD_LINE]
    assert isolated.diagnostics == here.diagnostics


async def test_a_newer_version_stops_the_older_ones_process() -> None:
    checks = Checks()
    text = large_document()
    first = asyncio.ensure_future(checks.results(Snapshot.of_text(URI, 1, text)))
    await asyncio.sleep(0)  # the first check is under way
    second = await checks.results(Snapshot.of_text(URI, 2, text + "x = 1\n"))
    with pytest.raises(StaleCheck):
        await first
    assert [r.version for r in second] == [2] and len(second[0].findings) == 1
    assert checks.stored(URI) == second[0]


async def test_a_newer_version_known_stops_the_check_without_asking_for_it() -> None:
    """An edit that arrives while the document's check runs (the refresh loop waits for that
    check) stops it at once; the same version known again does not."""
    checks = Checks()
    text = large_document()
    first = asyncio.ensure_future(checks.results(Snapshot.of_text(URI, 1, text)))
    await asyncio.sleep(0)  # the first check is under way
    checks.supersede(Snapshot.of_text(URI, 1, text))
    checks.supersede(Snapshot.of_text(URI, 2, text + "x = 1\n"))
    with pytest.raises(StaleCheck):
        await first
    again = asyncio.ensure_future(checks.results(Snapshot.of_text(URI, 3, text)))
    await asyncio.sleep(0)
    checks.supersede(Snapshot.of_text(URI, 3, text))
    assert [r.version for r in await again] == [3]


STEP = (
    "def step_{n}():\n"
    "    model = nn.Linear(4, 2)\n"
    "    loss = model(torch.randn(2, 4)).pow(2).sum()\n"
    "    loss.backward()\n{bug}\n\n"
)
HEADER = "import torch\nfrom torch import nn\n\n\n"


async def test_an_edit_of_a_large_document_runs_again_only_what_it_reached() -> None:
    """The process that checks a large document keeps its checker's cache from one version to
    the next: a line added in the middle runs again only the edited function and those below it
    that found something (which moved), and finds what a check from scratch finds."""
    blocks = [HEADER]
    while sum(map(len, blocks)) <= ISOLATED_CHARS:
        bug = "    loss.backward()\n" if len(blocks) % 100 == 0 else ""
        blocks.append(STEP.format(n=len(blocks), bug=bug))
    steps, text = len(blocks) - 1, "".join(blocks)
    assert len(text) > ISOLATED_CHARS
    checks = Checks()
    (first,) = await checks.results(Snapshot.of_text(URI, 1, text))
    cold = checks.units_run(URI)
    assert cold == steps and len(first.findings) == steps // 100
    lines = text.split("\n")
    middle = len(lines) // 2
    edited = "\n".join([*lines[:middle], "# edited", *lines[middle:]])
    (second,) = await checks.results(Snapshot.of_text(URI, 2, edited))
    again = checks.units_run(URI)
    assert again == 1 + len(first.findings) // 2, (
        "the edited step, and the steps below it that found something"
    )
    fresh = Checks()
    (scratch,) = await fresh.results(Snapshot.of_text(URI, 2, edited))
    assert second.findings == scratch.findings and second.diagnostics == scratch.diagnostics
    assert fresh.units_run(URI) == cold
    checks.stop_all()
    fresh.stop_all()


async def test_a_large_documents_process_killed_is_replaced_by_the_next_check() -> None:
    checks = Checks()
    text = large_document()
    others = set(multiprocessing.active_children())  # an earlier test's, in the same worker
    (first,) = await checks.results(Snapshot.of_text(URI, 1, text))
    (child,) = set(multiprocessing.active_children()) - others
    child.kill()
    child.join(10)
    (second,) = await checks.results(Snapshot.of_text(URI, 2, text + "x = 1\n"))
    assert second.findings == first.findings and second.version == 2
    checks.stop_all()


def test_a_limit_note_lands_in_the_cell_it_is_about() -> None:
    """A notebook's cells are checked as one program: the note for the function a budget stopped
    goes to the cell holding its ``def``, on that cell's own line."""
    first = "import torch\nimport torch.nn as nn\n"
    second = stopped_by_the_budget().removeprefix("import torch\nimport torch.nn as nn\n")
    parts = tuple(Part(f"{NOTEBOOK}#cell{i}", 1, text) for i, text in enumerate((first, second)))
    results = Analyzer().run(Snapshot(NOTEBOOK, 1, parts, notebook=True))
    assert [len(result.diagnostics) for result in results] == [0, 1]
    (note,) = results[1].diagnostics
    assert note.message.startswith("not fully checked: train: stopped after")
    assert note.range.start.line == second.splitlines().index("def train():")
