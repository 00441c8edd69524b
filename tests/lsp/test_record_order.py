"""One record id defined by ``--records``, the editor's settings, ``[tool.errknow]`` and the
workspace's ``.errknow/records``: the server loads them in that order and the workspace wins."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from lsprotocol import types
from pytest_lsp import ClientServerConfig

from errknow_ls.kb import builtin_records_dir
from tests.lsp.conftest import SERVE, _stop
from tests.lsp.session import BUGGY, BUGGY_LINE, CALL, EditorClient, Session, make_client
from tests.support import SHIPPED_FILE, SHIPPED_ID, read_json, write_json

PROFILE = "vscode-modern"


def _override(directory: Path, layer: str) -> Path:
    record = read_json(SHIPPED_FILE) | {
        "root_cause": f"Cause from the {layer} layer.",
        "official_doc_url": f"https://example.org/{layer}",
    }
    write_json(directory / "override.json", record)
    return directory


@contextlib.asynccontextmanager
async def _serving(*args: str) -> AsyncIterator[EditorClient]:
    client = await ClientServerConfig(server_command=[*SERVE, *args], client_factory=make_client).start()
    assert isinstance(client, EditorClient)
    try:
        yield client
    finally:
        await _stop(client)
        await client.stop()  # type: ignore[no-untyped-call]


async def _hover(session: Session, uri: str) -> str:
    line = BUGGY.splitlines()[BUGGY_LINE]
    position = types.Position(BUGGY_LINE, session.column(line, line.index(CALL) + 2))
    result = await session.client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    return result.contents.value


async def _summary(session: Session) -> str:
    found = await session.until(
        types.WINDOW_LOG_MESSAGE,
        lambda: next((m for m in session.client.log_messages if m.message.startswith("errknow-ls ")), None),
    )
    return found.message


async def test_the_workspace_record_wins_over_settings_and_the_command_line(tmp_path: Path) -> None:
    command_line = _override(tmp_path / "cli-records", "command-line")
    settings = _override(tmp_path / "settings-records", "settings")
    workspace = tmp_path / "ws"
    pyproject = _override(workspace / "kb", "pyproject")
    (workspace / "pyproject.toml").write_text('[tool.errknow]\nrecords = ["kb"]\n', encoding="utf-8")
    own = _override(workspace / ".errknow" / "records", "workspace")
    async with _serving("--records", str(command_line)) as client:
        session = Session(client, PROFILE, workspace)
        await session.start(options={"records": [str(settings)]})
        sources = [builtin_records_dir(), command_line, settings, pyproject, own]
        assert (await _summary(session)).endswith(f"from {', '.join(map(str, sources))}")
        uri = session.open("train.py", BUGGY)
        (diagnostic,) = await session.diagnostics(uri)
        assert diagnostic.code_description is not None
        assert diagnostic.code_description.href == "https://example.org/workspace"
        # Hover on a static finding explains the rule's pattern, not the record's root cause (issue
        # 16); it names the record, whose winning layer the codeDescription above shows.
        text = await _hover(session, uri)
        assert f"errknow-ls explain {SHIPPED_ID}" in text and "Cause from the" not in text


async def test_settings_win_over_the_command_line(tmp_path: Path) -> None:
    command_line = _override(tmp_path / "cli-records", "command-line")
    settings = _override(tmp_path / "settings-records", "settings")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with _serving("--records", str(command_line)) as client:
        session = Session(client, PROFILE, workspace)
        await session.start(options={"records": [str(settings)]})
        uri = session.open("train.py", BUGGY)
        (diagnostic,) = await session.diagnostics(uri)
        assert diagnostic.code_description is not None
        assert diagnostic.code_description.href == "https://example.org/settings"
        assert f"errknow-ls explain {SHIPPED_ID}" in await _hover(session, uri)
