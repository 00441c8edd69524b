"""How long an error from a run is shown, and how: until its line is edited, a clean re-run of the
same command in the same terminal, its log rewritten or deleted, or the clear command; once per
bug, the static finding and the runs that raised it together; each run named in the user's words."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.test_watching import (
    CAPTURE,
    TRAIN,
    read_bytes,
    runtime,
    shown,
    traceback,
    workspace_source,
)

STEP = "import torch\n\n\ndef step(loss):\n    loss.backward()\n"
STEP_LINE = 4
"""0-based line of ``loss.backward()`` in STEP: no static finding there."""
AT_TIME = r"at \d\d:\d\d"


def run_output(
    session: Session,
    source: str,
    text: str = "",
    *,
    command: str | None = "python step.py",
    end: bool = False,
    exit_code: int | None = None,
    terminal: int | None = 2,
    cwd: str | None = None,
) -> None:
    """What VS Code's extension sends for a command run in terminal 2 (the Neovim plugin: ``terminal``
    for a run its shell marked, none for a ``:terminal python step.py`` of its own)."""
    params: dict[str, Any] = {"text": text, "cwd": cwd, "source": source}
    params |= {"terminal": terminal} if terminal is not None else {}
    params |= {"command": command} if command is not None else {}
    if end:
        params |= {"end": True, "exitCode": exit_code}
    session.client.protocol.notify("errknow/terminalOutput", params)


def write_step(session: Session) -> str:
    (session.root / "step.py").write_text(STEP, encoding="utf-8")
    return session.uri("step.py")


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_only_a_clean_rerun_of_the_same_command_in_the_same_terminal_clears_the_error(
    session: Session,
) -> None:
    write_step(session)
    await session.start()
    uri = session.open("step.py", STEP)
    run_output(session, "vscode-terminal://1/bash?run=1", traceback("/mnt/job/step.py", STEP_LINE + 1))
    run_output(session, "vscode-terminal://1/bash?run=1", end=True, exit_code=1)
    (flagged,) = await shown(session, uri, bool, is_open=True)
    assert flagged.range.start.line == STEP_LINE
    assert re.search(rf"\nraised here in the run in terminal 2 {AT_TIME}$", flagged.message), flagged.message
    assert "vscode-terminal" not in flagged.message
    assert flagged.code == "runtime"  # never a record id in the code column
    # Another command ends cleanly; the same command stopped (Ctrl-C) or failed elsewhere: proves nothing.
    run_output(session, "vscode-terminal://1/bash?run=2", "done\n", command="python other.py")
    run_output(session, "vscode-terminal://1/bash?run=2", end=True, exit_code=0, command="python other.py")
    run_output(session, "vscode-terminal://1/bash?run=3", "^C\n")
    run_output(session, "vscode-terminal://1/bash?run=3", end=True, exit_code=130)
    assert len(runtime(await session.pull(uri))) == 1
    run_output(session, "vscode-terminal://1/bash?run=4", "epoch 1 done\n")
    run_output(session, "vscode-terminal://1/bash?run=4", end=True, exit_code=0)
    assert runtime(await session.pull(uri)) == []


@pytest.mark.parametrize("profile", ["neovim-0.11"], indirect=True)
async def test_a_clean_rerun_of_the_same_command_in_the_same_directory_clears_it_in_any_terminal(
    session: Session,
) -> None:
    """Neovim's ``:terminal python step.py`` is a terminal per run: the same program is the same
    command line in the same directory, and the run is named by its command."""
    write_step(session)
    await session.start()
    uri = session.open("step.py", STEP)
    here, elsewhere = str(session.root), str(session.root / "other")

    def job(number: int, text: str = "", *, cwd: str = here, **end: Any) -> None:
        source = f"term://{cwd}//{100 + number}:python step.py"
        run_output(session, source, text, terminal=None, cwd=cwd, **end)

    job(1, traceback(str(session.root / "step.py"), STEP_LINE + 1))
    job(1, end=True, exit_code=1)
    (flagged,) = await shown(session, uri, bool, is_open=True)
    assert re.search(rf"\nraised here in the run of `python step.py` {AT_TIME}$", flagged.message), (
        flagged.message
    )
    job(2, "done\n", cwd=elsewhere)  # the same command line in another directory: another program
    job(2, end=True, exit_code=0, cwd=elsewhere)
    job(3, end=True, exit_code=None)  # the shell gave no status: proves nothing
    assert len(runtime(await session.pull(uri))) == 1
    job(4, "epoch 1 done\n")
    job(4, end=True, exit_code=0)
    assert runtime(await session.pull(uri)) == []


@pytest.mark.parametrize("profile", ["neovim-0.11"], indirect=True)
async def test_output_no_run_is_known_for_ends_without_taking_anything_back(session: Session) -> None:
    """A shell's own output outside the runs its prompt marked (or without marks) has no command: an
    exit code on it (the shell's) says nothing of a program, and clears nothing."""
    write_step(session)
    await session.start()
    uri = session.open("step.py", STEP)
    shell = "term:///w//7:/usr/bin/bash"
    run_output(session, f"{shell}#run=1", traceback("/mnt/job/step.py", STEP_LINE + 1), terminal=1)
    run_output(session, f"{shell}#run=1", end=True, exit_code=1, terminal=1)
    await shown(session, uri, bool, is_open=True)
    run_output(session, shell, "$ exit\n", command=None, terminal=None)
    run_output(session, shell, end=True, exit_code=0, command=None, terminal=None)
    run_output(session, "term:///w//8:/usr/bin/bash", end=True, exit_code=0, command=None, terminal=None)
    assert len(runtime(await session.pull(uri))) == 1
    run_output(session, f"{shell}#run=2", "ok\n", terminal=1)
    run_output(session, f"{shell}#run=2", end=True, exit_code=0, terminal=1)
    assert runtime(await session.pull(uri)) == []


@pytest.mark.parametrize("profile", ["emacs-29", "neovim-0.11"], indirect=True)
async def test_a_clean_rerun_clears_the_error_on_a_closed_file(session: Session) -> None:
    uri = write_step(session)
    await session.start()
    run_output(session, "vscode-terminal://1/bash?run=1", traceback("/mnt/job/step.py", STEP_LINE + 1))
    await shown(session, uri, bool)
    run_output(session, "vscode-terminal://1/bash?run=2", end=True, exit_code=0)
    await shown(session, uri, lambda found: not found)


@pytest.mark.parametrize("profile", ["emacs-29", "vscode-modern"], indirect=True)
async def test_the_clear_command_takes_back_every_finding_from_runs(session: Session) -> None:
    source = workspace_source(session)
    await session.start()
    log_uri = session.uri("nohup.out")
    session.versions[log_uri] = 1
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(log_uri, "log", 1, CAPTURE))
    )
    (on_log,) = await shown(session, log_uri, bool, is_open=True)
    # Shown on the user's line as the error; on the log's own line it is not counted twice.
    assert on_log.severity == types.DiagnosticSeverity.Information
    await shown(session, source.as_uri(), bool)
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="errknow.clearRuntimeFindings")
    )
    assert result == {"documents": 2}
    await shown(session, source.as_uri(), lambda found: not found)
    await shown(session, log_uri, lambda found: not found, is_open=True)


@pytest.mark.parametrize("profile", ["neovim-0.11"], indirect=True)
async def test_a_log_rewritten_by_a_new_run_or_deleted_takes_its_findings_back(session: Session) -> None:
    source = workspace_source(session)
    log_file = session.root / "train.log"
    log_file.write_text("run 1\n" + CAPTURE, encoding="utf-8")
    await session.start()
    change = types.FileEvent(uri=log_file.as_uri(), type=types.FileChangeType.Changed)
    await shown(session, source.as_uri(), bool)  # read at start: no event needed
    # The next run rewrites the log (`> train.log`): longer than before, other first bytes.
    log_file.write_text("run 2\n" + "epoch 1 done\n" * (len(CAPTURE) // 10), encoding="utf-8")
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))
    await shown(session, source.as_uri(), lambda found: not found)
    log_file.write_text("run 3\n" + CAPTURE, encoding="utf-8")
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))
    await shown(session, source.as_uri(), bool)
    log_file.unlink()
    deleted = types.FileEvent(uri=log_file.as_uri(), type=types.FileChangeType.Deleted)
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[deleted]))
    await shown(session, source.as_uri(), lambda found: not found)


@pytest.mark.parametrize("profile", ["vscode-modern", "neovim-0.11"], indirect=True)
async def test_logs_in_the_workspace_are_read_at_start(session: Session) -> None:
    source = workspace_source(session)
    (session.root / "runs").mkdir()
    (session.root / "runs" / "nohup.out").write_text(CAPTURE, encoding="utf-8")
    (session.root / "runs" / "notes.txt").write_text(CAPTURE, encoding="utf-8")  # not a log's name
    outside = session.root.parent / "outside.log"
    outside.write_text(CAPTURE, encoding="utf-8")
    (session.root / "linked.log").symlink_to(outside)  # a link out of the workspace is not ours
    newest = outside.stat().st_mtime + 10
    os.utime(session.root / "runs" / "nohup.out", (newest, newest))  # read last of all
    await session.start()
    (on_source,) = await shown(session, source.as_uri(), bool)
    assert on_source.range.start.line == 32
    assert on_source.message.endswith("raised here in the run logged in runs/nohup.out")
    assert await read_bytes(session, "nohup.out", 1) == len(CAPTURE.encode())
    read = [m.message for m in session.client.log_messages if " bytes of " in m.message]
    assert read == [f"errknow: read {len(CAPTURE.encode())} bytes of nohup.out"], read


@pytest.mark.parametrize("profile", ["vscode-modern", "emacs-29"], indirect=True)
async def test_the_static_finding_and_the_runs_that_raised_it_are_one_diagnostic(session: Session) -> None:
    (session.root / "train.py").write_text(TRAIN, encoding="utf-8")
    (session.root / "logs").mkdir()
    (session.root / "logs" / "train.log").write_text(traceback("/mnt/job/train.py", 6), encoding="utf-8")
    await session.start()
    uri = session.open("train.py", TRAIN)
    await read_bytes(session, "train.log", 1)
    run_output(
        session,
        "vscode-terminal://1/bash?run=1",
        traceback("/mnt/job/train.py", 6),
        command="python train.py",
    )

    def joined(found: list[types.Diagnostic]) -> bool:
        """The static finding with both runs in it (the runs may be shown before the check ends)."""
        origins = (found[0].data or {}).get("runtime", {}).get("origins", []) if len(found) == 1 else []
        return len(origins) == 2 and found[0].code == "EK001"

    (one,) = await shown(session, uri, joined, is_open=True)
    assert len(await session.diagnostics(uri)) == 1  # the static finding, the terminal's run, the log's: one
    assert one.code == "EK001" and one.range.start.line == 5
    assert re.search(rf"\nraised here in the run in terminal 2 {AT_TIME} and 1 more$", one.message), (
        one.message
    )
    assert one.related_information is not None
    runs = [r for r in one.related_information if r.message.startswith("raised here in")]
    assert [r.location.uri for r in runs] == [uri, session.uri("logs/train.log")]
    assert re.match(rf"raised here in the run in terminal 2 {AT_TIME}: RuntimeError: ", runs[0].message)
    assert runs[1].message.startswith("raised here in the run logged in logs/train.log: RuntimeError: ")
    logged = traceback("/mnt/job/train.py", 6).splitlines()
    assert runs[1].location.range.start.line == next(
        i for i, line in enumerate(logged) if line.startswith("RuntimeError:")
    )
    # The fix: the line's text changes, and what the runs showed there goes with it.
    session.change(uri, TRAIN.replace("loss.backward()\nloss.backward()", "loss.backward()\n"))
    assert runtime(await session.diagnostics(uri)) == []


@pytest.mark.parametrize("profile", ["emacs-29"], indirect=True)
async def test_chinese_names_the_run_in_chinese(session: Session) -> None:
    uri = write_step(session)
    await session.start(locale="zh-cn")
    run_output(session, "vscode-terminal://1/bash?run=1", traceback("/mnt/job/step.py", STEP_LINE + 1))
    (flagged,) = await shown(session, uri, bool)
    assert re.search(r"\n此处在 \d\d:\d\d 于终端 2 的运行中引发$", flagged.message), flagged.message


@pytest.mark.parametrize("profile", ["neovim-0.11"], indirect=True)
async def test_a_closed_file_edited_on_disk_loses_the_errors_of_its_edited_lines(session: Session) -> None:
    uri = write_step(session)
    await session.start()
    run_output(session, "vscode-terminal://1/bash?run=1", traceback("/mnt/job/step.py", STEP_LINE + 1))
    await shown(session, uri, bool)
    edited = STEP.replace("loss.backward()", "loss.backward(retain_graph=True)")
    (session.root / "step.py").write_text(edited, encoding="utf-8")
    change = types.FileEvent(uri=uri, type=types.FileChangeType.Changed)
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[change]))
    await shown(session, uri, lambda found: not found)


@pytest.mark.parametrize("profile", ["neovim-0.11"], indirect=True)
async def test_logs_that_new_log_globs_name_are_read_at_once(session: Session) -> None:
    source = workspace_source(session)
    (session.root / "run.trainlog").write_text(CAPTURE, encoding="utf-8")
    await session.start()
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"errknow": {"logGlobs": ["**/*.trainlog"]}})
    )
    (on_source,) = await shown(session, source.as_uri(), bool)
    assert on_source.message.endswith("raised here in the run logged in run.trainlog")
