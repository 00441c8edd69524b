"""The whole workspace, once per editor profile: a background scan with progress, excludes from
``.gitignore``, ``[tool.errknow]`` and settings, and re-checks on watched-file changes."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.session import BUGGY, CLEAN, WAIT, Session

FILES = 300


def _write_workspace(root: Path) -> set[Path]:
    """300 files, every 50th buggy; and buggy files where each kind of exclude must hide them."""
    buggy = set()
    for index in range(FILES):
        path = root / f"pkg{index % 7}" / f"module_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            BUGGY if index % 50 == 0 else f"def f_{index}(x):\n    return x + {index}\n", encoding="utf-8"
        )
        if index % 50 == 0:
            buggy.add(path)
    for hidden in (
        "generated/out.py",
        "pkg0/cache/x.py",
        "vendored/lib.py",
        "scratch/try.py",
        ".venv/lib/t.py",
    ):
        (root / hidden).parent.mkdir(parents=True, exist_ok=True)
        (root / hidden).write_text(BUGGY, encoding="utf-8")
    (root / ".gitignore").write_text("generated/\n", encoding="utf-8")
    (root / "pkg0" / ".gitignore").write_text("cache/\n", encoding="utf-8")
    (root / "pyproject.toml").write_text('[tool.errknow]\nextend-exclude = ["vendored"]\n', encoding="utf-8")
    return buggy


async def _flagged(session: Session) -> set[str]:
    """URIs of closed files with diagnostics, as this client sees them."""
    if session.pulls_workspace:
        report = await session.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        return {
            i.uri
            for i in report.items
            if isinstance(i, types.WorkspaceFullDocumentDiagnosticReport) and i.items
        }
    latest = {p.uri: p for p in session.published}
    return {uri for uri, p in latest.items() if p.diagnostics}


async def test_the_workspace_is_checked_in_the_background_with_progress(session: Session) -> None:
    buggy = _write_workspace(session.root)
    await session.start(options={"exclude": ["scratch/"]})
    await session.progress_ended()
    assert await _flagged(session) == {p.as_uri() for p in buggy}
    (_token, reports), *_ = session.client.progress_reports.items()
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(
        reports[-1], types.WorkDoneProgressEnd
    )
    if session.pulls_workspace:
        assert [p for p in session.published if p.diagnostics] == []  # pulled, so never pushed
        await session.refreshed()


async def test_watched_file_changes_are_checked_again(session: Session) -> None:
    clean, buggy = session.root / "clean.py", session.root / "buggy.py"
    clean.write_text(CLEAN, encoding="utf-8")
    buggy.write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    watching = session.caps.workspace.did_change_watched_files if session.caps.workspace else None
    if watching and watching.dynamic_registration:  # the server asks the client to watch its files
        (registration,) = session.registrations
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert await _flagged(session) == {buggy.as_uri()}
    session.refreshes.clear()
    clean.write_text(BUGGY, encoding="utf-8")
    buggy.unlink()
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=clean.as_uri(), type=types.FileChangeType.Changed),
                types.FileEvent(uri=buggy.as_uri(), type=types.FileChangeType.Deleted),
            ]
        )
    )
    if session.pulls_workspace:
        await session.refreshed()
    else:
        await session.published_for(clean.as_uri(), lambda p: bool(p.diagnostics))
        await session.published_for(buggy.as_uri(), lambda p: not p.diagnostics)
    assert await _flagged(session) == {clean.as_uri()}


async def test_a_file_newly_excluded_loses_its_diagnostics(session: Session) -> None:
    kept, ignored = session.root / "kept" / "train.py", session.root / "old" / "train.py"
    for path in (kept, ignored):
        path.parent.mkdir()
        path.write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    assert await _flagged(session) == {kept.as_uri(), ignored.as_uri()}
    session.refreshes.clear()
    (session.root / ".gitignore").write_text("old/\n", encoding="utf-8")
    gitignore = (session.root / ".gitignore").as_uri()
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=gitignore, type=types.FileChangeType.Created)]
        )
    )
    if session.pulls_workspace:
        await session.refreshed()
    else:
        await session.published_for(ignored.as_uri(), lambda p: not p.diagnostics)
    assert await _flagged(session) == {kept.as_uri()}


@pytest.mark.parametrize("profile", ["neovim-0.11"], indirect=True)
async def test_a_client_that_asks_workspace_diagnostic_gets_closed_files_by_pull(session: Session) -> None:
    """Neovim 0.11 pulls open documents only, so closed files are pushed; should it ask for the
    workspace after all, it gets them that way, and what was pushed is taken back."""
    buggy = session.root / "train.py"
    buggy.write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    assert [len(p.diagnostics) for p in session.published] == [1]
    report = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    (item,) = report.items
    assert isinstance(item, types.WorkspaceFullDocumentDiagnosticReport) and len(item.items) == 1
    cleared = await session.published_for(buggy.as_uri(), lambda p: not p.diagnostics)
    assert session.published[-1] is cleared


async def test_new_log_globs_replace_the_file_watching_registration(session: Session) -> None:
    watching = session.caps.workspace.did_change_watched_files if session.caps.workspace else None
    if not (watching and watching.dynamic_registration):
        pytest.skip("this client does not let servers register file watching")
    await session.start()
    async with asyncio.timeout(WAIT):
        await session.client.registered.wait()
    (first,) = session.registrations
    session.client.registered.clear()
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"errknow": {"logGlobs": ["**/*.trainlog"]}})
    )
    async with asyncio.timeout(WAIT):
        await session.client.registered.wait()
    (second,) = session.registrations  # the first was unregistered
    assert second.id != first.id
    assert isinstance(second.register_options, dict | types.DidChangeWatchedFilesRegistrationOptions)
    options = second.register_options
    watchers = options["watchers"] if isinstance(options, dict) else options.watchers
    patterns = [w["globPattern"] if isinstance(w, dict) else w.glob_pattern for w in watchers]
    assert "**/*.trainlog" in patterns and "**/*.py" in patterns
    assert "**/*.log" not in patterns


async def test_the_scan_reads_only_regular_files(session: Session) -> None:
    """A FIFO named ``*.py`` and symlinks to devices, met first, neither stop nor stall the scan."""
    os.mkfifo(session.root / "a_fifo.py")
    (session.root / "b_zero.py").symlink_to("/dev/zero")
    (session.root / "b_random.py").symlink_to("/dev/urandom")
    buggy = session.root / "c.py"
    buggy.write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    assert await _flagged(session) == {buggy.as_uri()}
