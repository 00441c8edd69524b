"""The real server over stdio: it starts, says what it loaded, and shuts down cleanly."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from errknow_ls import __version__
from errknow_ls.kb import KnowledgeBase, builtin_records_dir
from tests.lsp.session import make_client
from tests.support import REPO

SERVE = [sys.executable, "-m", "errknow_ls", "serve"]
ONE_BROKEN = REPO / "tests" / "lsp" / "fixtures" / "one-broken"
EDITORS = ["visual-studio-code", "neovim", "emacs"]
# A bound on waiting, so that a silent server fails the test instead of hanging it.
WAIT_SECONDS = 30


async def _session(client: LanguageClient, editor: str) -> AsyncIterator[None]:
    params = types.InitializeParams(capabilities=pytest_lsp.client_capabilities(editor))
    await client.initialize_session(params)
    yield
    await client.shutdown_session()
    # pytest-lsp keeps the server process here; exit after shutdown must be a clean one.
    assert client._server is not None
    assert client._server.returncode == 0


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVE, client_factory=make_client), params=EDITORS
)  # type: ignore[untyped-decorator]
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    async for step in _session(lsp_client, request.param):
        yield step


@pytest_lsp.fixture(  # type: ignore[untyped-decorator]
    config=ClientServerConfig(
        server_command=[*SERVE, "--records", str(ONE_BROKEN)], client_factory=make_client
    )
)
async def client_with_broken_record(lsp_client: LanguageClient) -> AsyncIterator[None]:
    async for step in _session(lsp_client, "visual-studio-code"):
        yield step


async def wait_for_log(
    client: LanguageClient, wanted: Callable[[types.LogMessageParams], bool]
) -> types.LogMessageParams:
    """The first ``window/logMessage`` that ``wanted`` accepts, received already or still to come."""
    async with asyncio.timeout(WAIT_SECONDS):
        while True:
            for message in client.log_messages:
                if wanted(message):
                    return message
            # Nothing awaits between the scan and this call, so no message can slip in unseen.
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)


def _is_summary(message: types.LogMessageParams) -> bool:
    return message.message.startswith("errknow-ls ")


async def test_initialized_logs_the_record_count(client: LanguageClient) -> None:
    message = await wait_for_log(client, _is_summary)
    assert message.type == types.MessageType.Info
    count = len(KnowledgeBase.load().records)
    assert count > 1
    assert message.message == f"errknow-ls {__version__}: {count} records from {builtin_records_dir()}"


async def test_a_broken_user_record_is_logged_as_a_warning(client_with_broken_record: LanguageClient) -> None:
    client = client_with_broken_record
    warning = await wait_for_log(client, lambda m: m.type == types.MessageType.Warning)
    assert warning.message.startswith(f"record skipped: {ONE_BROKEN / 'not-json.json'}: (file): not JSON: ")
    summary = await wait_for_log(client, _is_summary)
    count = len(KnowledgeBase.load().records)
    assert summary.message.endswith(f"{count} records from {builtin_records_dir()}, {ONE_BROKEN}")
