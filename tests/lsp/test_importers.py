"""A file that imports the project's own module is checked again when that module changes: edited
in the editor and not saved (what the user sees counts), or changed on disk; once per editor
profile, over stdio."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsprotocol import types

from errknow_ls.analysis.modules import digest
from errknow_ls.project.summaries import DiskSummaries
from tests.lsp.session import WAIT, Session
from tests.support import REPO

PROJECT = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
TRAIN = (PROJECT / "train.py").read_text(encoding="utf-8")
"""Imports ``smooth`` from ``utils`` and carries a state through it from one step to the next."""
BACKWARD_LINE = next(n for n, line in enumerate(TRAIN.splitlines()) if "# error:" in line)
"""0-based: the backward that reaches the previous iteration's graph when ``smooth`` keeps it
(``tests/analysis/test_projects.py`` runs the project under torch to prove it)."""
CUTS = "def smooth(state, factor=0.9):\n    return state.detach()\n"
KEEPS = "def smooth(state, factor=0.9):\n    return state\n"


def write_project(root: Path, helper: str) -> tuple[Path, Path]:
    train, utils = root / "train.py", root / "utils.py"
    train.write_text(TRAIN, encoding="utf-8")
    utils.write_text(helper, encoding="utf-8")
    return train, utils


def lines(diagnostics: list[types.Diagnostic]) -> list[int]:
    return [d.range.start.line for d in diagnostics]


async def flagged(
    session: Session, uri: str, expected: list[int], since: int, *, closed: bool = False
) -> None:
    """Wait until the editor flags ``expected`` lines of ``uri`` (open, or ``closed``): pulled (an
    open document once, the server taking each change before the next request; a closed one again
    at each ``workspace/diagnostic/refresh``), or in the last publication after ``since`` (an
    earlier one may still be of the text before). A server that never gets there fails the test at
    the timeout."""
    async with asyncio.timeout(WAIT):
        while True:
            if session.pulls and not closed:  # at once: no wait could make up for a stale answer
                assert lines(await session.pull(uri)) == expected
                return
            if session.pulls_workspace and closed:
                session.refreshes.clear()  # a refresh asked from now on is one more pull
                report = await session.client.workspace_diagnostic_async(
                    types.WorkspaceDiagnosticParams(previous_result_ids=[])
                )
                items = [i for i in report.items if i.uri == uri]
                assert len(items) == 1 and isinstance(items[0], types.WorkspaceFullDocumentDiagnosticReport)
                if lines(list(items[0].items)) == expected:
                    return
                await session.refreshes.wait()
            else:
                published = [p for p in session.published[since:] if p.uri == uri]
                if published and lines(list(published[-1].diagnostics)) == expected:
                    return
                await session.client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def test_an_unsaved_edit_of_an_imported_helper_changes_its_importer(session: Session) -> None:
    train, utils = write_project(session.root, CUTS)
    await session.start()
    train_uri = session.open("train.py", TRAIN)
    assert await session.diagnostics(train_uri) == []
    utils_uri = session.open("utils.py", CUTS)
    await session.diagnostics(utils_uri)
    since = len(session.published)
    session.change(utils_uri, KEEPS)  # not saved: the disk still cuts the graph
    await flagged(session, train_uri, [BACKWARD_LINE], since)
    assert utils.read_text(encoding="utf-8") == CUTS
    since = len(session.published)
    session.change(utils_uri, CUTS)
    await flagged(session, train_uri, [], since)
    since = len(session.published)
    session.change(utils_uri, KEEPS)
    await flagged(session, train_uri, [BACKWARD_LINE], since)
    since = len(session.published)
    session.close(utils_uri)  # the edit is dropped: back to what the disk says
    await flagged(session, train_uri, [], since)
    assert train.read_text(encoding="utf-8") == TRAIN


async def test_the_server_keeps_the_summaries_of_the_helpers_it_read(session: Session) -> None:
    """Where ``check`` keeps them, beside the results cache: ``smooth`` of the helper as it says
    now (its summary: a detached tensor), then as it says after an unsaved edit (the tensor it
    was handed), each by the hash of the text."""
    write_project(session.root, CUTS)
    await session.start()
    train_uri = session.open("train.py", TRAIN)
    assert await session.diagnostics(train_uri) == []
    utils_uri = session.open("utils.py", CUTS)
    await session.diagnostics(utils_uri)
    since = len(session.published)
    session.change(utils_uri, KEEPS)
    await flagged(session, train_uri, [BACKWARD_LINE], since)
    store = DiskSummaries(session.root / ".errknow_cache")
    for helper, said in ((CUTS, ["detached"]), (KEEPS, ["param", 0])):
        kept = store.load(digest(helper))
        assert kept and {json.dumps(json.loads(v)[0]) for v in kept.values()} == {json.dumps(said)}


async def test_a_helper_changed_on_disk_changes_its_open_importer(session: Session) -> None:
    _, utils = write_project(session.root, CUTS)
    await session.start()
    train_uri = session.open("train.py", TRAIN)
    assert await session.diagnostics(train_uri) == []
    for helper, expected in ((KEEPS, [BACKWARD_LINE]), (CUTS, [])):
        since = len(session.published)
        utils.write_text(helper, encoding="utf-8")
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=utils.as_uri(), type=types.FileChangeType.Changed)]
            )
        )
        await flagged(session, train_uri, expected, since)


async def test_a_closed_importer_is_checked_again_when_its_helper_changes(session: Session) -> None:
    train, utils = write_project(session.root, KEEPS)
    await session.start()
    await session.progress_ended()
    await flagged(session, train.as_uri(), [BACKWARD_LINE], 0, closed=True)
    since = len(session.published)
    utils.write_text(CUTS, encoding="utf-8")
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=utils.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    await flagged(session, train.as_uri(), [], since, closed=True)
    utils_uri = session.open("utils.py", CUTS)
    await session.diagnostics(utils_uri)
    since = len(session.published)
    session.change(utils_uri, KEEPS)  # unsaved: the closed importer sees it too
    await flagged(session, train.as_uri(), [BACKWARD_LINE], since, closed=True)


async def test_an_importer_is_checked_again_when_its_missing_helper_is_created(session: Session) -> None:
    """``utils`` does not exist when ``train.py`` is checked: the import stays unknown and nothing is
    reported. Once ``utils.py`` is created (one watched-file event), the import finds it."""
    _, utils = write_project(session.root, KEEPS)
    utils.unlink()
    await session.start()
    train_uri = session.open("train.py", TRAIN)
    assert await session.diagnostics(train_uri) == []
    since = len(session.published)
    utils.write_text(KEEPS, encoding="utf-8")
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=utils.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    await flagged(session, train_uri, [BACKWARD_LINE], since)


async def test_a_finding_through_a_helper_points_into_the_helper(session: Session) -> None:
    """The call here reaches backwards in the project's module: the diagnostic's related places are
    there, in the helper's own file (the backward that raises, the one that freed its graph)."""
    project = REPO / "tests" / "analysis" / "projects" / "helper_backwards_twice"
    text = (project / "train.py").read_text(encoding="utf-8")
    helper = (project / "steps.py").read_text(encoding="utf-8")
    (session.root / "train.py").write_text(text, encoding="utf-8")
    (session.root / "steps.py").write_text(helper, encoding="utf-8")
    await session.start()
    uri = session.open("train.py", text)
    (diagnostic,) = await session.diagnostics(uri)
    assert diagnostic.range.start.line == next(
        n for n, line in enumerate(text.splitlines()) if "# error:" in line
    )
    backwards = [n for n, line in enumerate(helper.splitlines()) if "loss.backward()" in line]
    related = [(r.location.uri, r.location.range.start.line) for r in diagnostic.related_information or []]
    steps_uri = (session.root / "steps.py").resolve().as_uri()
    assert related == [(steps_uri, backwards[1]), (steps_uri, backwards[0])]
