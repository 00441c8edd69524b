"""Settings and commands, once per editor profile: initializationOptions, workspace/configuration,
changes at runtime, ``[tool.errknow]``, bad values, ``errknow.explain`` and ``errknow.records``."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from errknow_ls.kb import builtin_records_dir
from tests.lsp.session import BUGGY, Session
from tests.support import GOOD_FILE, GOOD_ID, REPO, SHIPPED_FILE, SHIPPED_ID, SHIPPED_IDS, copy_into

ONE_BROKEN = REPO / "tests" / "lsp" / "fixtures" / "one-broken"
SECOND_BACKWARD = (
    "RuntimeError: Trying to backward through the graph a second time, but the buffers have already "
    "been freed. Specify retain_graph=True when calling backward the first time."
)
TRACEBACK = f"""\
Traceback (most recent call last):
  File "train.py", line 9, in <module>
    loss.backward()
{SECOND_BACKWARD}
"""


async def test_a_settings_change_applies_at_once(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    (before,) = await session.diagnostics(uri)
    assert before.severity == types.DiagnosticSeverity.Error
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"errknow": {"severity": {"double-backward": "hint"}}})
    )
    if session.pulls:
        if session.caps.workspace and session.caps.workspace.diagnostics:
            await session.refreshed()  # the server asks the client to pull again
        (after,) = await session.pull(uri)
    else:
        published = await session.published_for(
            uri, lambda p: len(p.diagnostics) == 1 and p.diagnostics[0].severity == 4
        )
        (after,) = published.diagnostics
        assert published.version == 1
    assert after.severity == types.DiagnosticSeverity.Hint
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"errknow": {"severity": {"EK001": "off"}}})
    )
    if session.pulls:
        assert await session.pull(uri) == []
    else:
        await session.published_for(uri, lambda p: not p.diagnostics)


async def test_workspace_configuration_is_read(session: Session) -> None:
    session.client.set_configuration({"severity": {"EK001": "warning"}}, section="errknow")
    await session.start()
    uri = session.open("train.py", BUGGY)
    (diagnostic,) = await session.diagnostics(uri)
    assert diagnostic.severity == types.DiagnosticSeverity.Warning


async def test_invalid_settings_fall_back_with_one_message(session: Session) -> None:
    await session.start(options={"severity": "loud", "select": "EK001", "ignore": ["EK9"], "unknownKey": 1})
    uri = session.open("train.py", BUGGY)
    assert len(await session.diagnostics(uri)) == 1  # select still applies
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"errknow": {"severity": "loud", "select": "EK001"}})
    )
    session.change(uri, BUGGY + "\n")
    assert len(await session.diagnostics(uri)) == 1
    shown = [m for m in session.client.messages if "invalid errknow settings" in m.message]
    assert len(shown) == 1 and "severity" in shown[0].message and shown[0].type == types.MessageType.Warning
    assert [m.message for m in session.client.messages if "no rule matches" in m.message] == [
        "errknow settings: no rule matches 'EK9'; ignored"
    ]


async def test_the_workspace_pyproject_is_read_and_editor_settings_win(session: Session) -> None:
    (session.root / "pyproject.toml").write_text(
        '[tool.errknow]\nselect = ["EK002"]\ncolour = "blue"\n', encoding="utf-8"
    )
    await session.start()
    uri = session.open("train.py", BUGGY)
    assert await session.diagnostics(uri) == []  # EK001 is not selected there
    assert any("unknown keys ignored: colour" in m.message for m in session.client.messages)
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"errknow": {"select": ["EK"]}})
    )
    session.change(uri, BUGGY + "\n")
    assert len(await session.diagnostics(uri)) == 1


async def test_per_file_ignores_apply_as_check_applies_them(session: Session) -> None:
    """``per-file-ignores`` globs are relative to the project root, and a bare name matches in any
    directory, as in ``errknow-ls check``; a selector naming no rule is said once."""
    (session.root / "pyproject.toml").write_text(
        "[tool.errknow.per-file-ignores]\n"
        '"scripts/*.py" = ["EK001", "EK999"]\n'
        '"demo.py" = ["double-backward"]\n',
        encoding="utf-8",
    )
    await session.start()
    ignored = [session.open(name, BUGGY) for name in ("scripts/train.py", "pkg/demo.py")]
    checked = [session.open(name, BUGGY) for name in ("train.py", "pkg/scripts/train.py")]
    for uri in ignored:
        assert await session.diagnostics(uri) == [], uri
    for uri in checked:
        assert [d.code for d in await session.diagnostics(uri)] == ["EK001"], uri
    warning = "[tool.errknow] per-file-ignores: 'scripts/*.py': no rule matches 'EK999'; ignored"
    assert [m.message for m in session.client.messages].count(warning) == 1


async def test_extra_record_directories_from_settings(session: Session) -> None:
    await session.start(options={"records": [str(ONE_BROKEN)]})
    warning = await session.until(
        types.WINDOW_LOG_MESSAGE,
        lambda: next(
            (m for m in session.client.log_messages if m.message.startswith("record skipped")), None
        ),
    )
    assert warning.type == types.MessageType.Warning and "not-json.json" in warning.message


async def _explain(session: Session, *arguments: object) -> dict[str, object]:
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="errknow.explain", arguments=list(arguments))
    )
    assert isinstance(result, dict)
    return result


async def test_explain_a_record_id_a_traceback_or_a_message(session: Session) -> None:
    await session.start()
    by_id = await _explain(session, SHIPPED_ID)
    assert by_id["records"] == [SHIPPED_ID] and "**What to do**" in str(by_id["markdown"])
    assert (await _explain(session, TRACEBACK))["records"] == [SHIPPED_ID]
    bare = await _explain(session, SECOND_BACKWARD)
    assert bare["records"] == [SHIPPED_ID]
    assert "without a traceback there are no frames, so no source line" in str(bare["markdown"])
    assert "no frames" not in str((await _explain(session, TRACEBACK))["markdown"])
    assert "**应该这样做**" in str((await _explain(session, SHIPPED_ID, "zh"))["markdown"])
    assert await _explain(session, "nothing we know") == {"records": [], "markdown": ""}
    with pytest.raises(JsonRpcInvalidParams):
        await _explain(session, 42)


async def test_records_lists_what_this_server_loaded_and_from_where(session: Session) -> None:
    extra = copy_into(session.root.parent / "extra", GOOD_FILE)
    workspace_records = copy_into(session.root / ".errknow" / "records", SHIPPED_FILE)
    await session.start(options={"records": [str(extra)]})
    listed = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="errknow.records", arguments=[])
    )
    assert isinstance(listed, list)
    by_id = {entry["id"]: entry for entry in listed}
    assert [entry["id"] for entry in listed] == sorted(by_id) == sorted([*SHIPPED_IDS, GOOD_ID])
    assert by_id[GOOD_ID] == {
        "id": GOOD_ID,
        "signature": "RuntimeError: the widget exploded while loading",
        "tier": "ai_generated",
        "confidence": 0.5,
        "source": str(extra),
    }
    # The workspace's copy of a built-in record overrides it, and says so.
    assert by_id[SHIPPED_ID]["source"] == str(workspace_records)
    others = {entry["source"] for rid, entry in by_id.items() if rid not in (GOOD_ID, SHIPPED_ID)}
    assert others == {str(builtin_records_dir())}


async def test_explain_right_after_start_knows_the_settings_records(session: Session) -> None:
    """Asked before the settings' record directories are read, ``errknow.explain`` waits for them."""
    extra = copy_into(session.root / "extra-records", GOOD_FILE)
    await session.start(options={"records": [str(extra)]})
    assert (await _explain(session, GOOD_ID))["records"] == [GOOD_ID]


async def test_settings_sent_at_start_raise_no_error(session: Session) -> None:
    """Neovim sends didChangeConfiguration right after initialized: the scan it restarts was
    waiting for the client to create its progress token, and the client's late answer to that
    cancelled request must be dropped quietly."""
    (session.root / "train.py").write_text(BUGGY, encoding="utf-8")
    await session.start()
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"errknow": {"severity": {"EK001": "warning"}}})
    )
    await session.progress_ended()
    uri = session.uri("train.py")
    if session.pulls_workspace:
        await session.refreshed()
        report = await session.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        (item,) = report.items
        assert isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)
        (diagnostic,) = item.items
    else:
        (diagnostic,) = (await session.published_for(uri, lambda p: bool(p.diagnostics))).diagnostics
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    session.open("train.py", BUGGY)
    assert await session.diagnostics(uri)  # a request round trip: any error message is in by now
    assert [m.message for m in session.client.messages if "Error" in m.message] == []
