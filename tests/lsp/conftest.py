"""The server under test, started over stdio once per test and per editor profile."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.profiles import PROFILES
from tests.lsp.session import WAIT, EditorClient, Session, make_client

SERVE = [sys.executable, "-m", "errknow_ls", "serve"]
CACHE = Path(tempfile.mkdtemp(prefix="errknow-lsp-cache-"))
"""The servers' ``XDG_CACHE_HOME``: where hover writes a record's whole explanation, not the user's."""
SERVER_ENV = {**os.environ, "XDG_CACHE_HOME": str(CACHE)}


@pytest.fixture(params=sorted(PROFILES))
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVE, client_factory=make_client, server_env=SERVER_ENV)
)  # type: ignore[untyped-decorator]
async def editor(lsp_client: EditorClient, profile: str) -> AsyncIterator[None]:
    # pytest-lsp hands the test the client itself; what this fixture yields is dropped.
    del profile
    yield
    await _stop(lsp_client)


async def _stop(client: LanguageClient) -> None:
    """Shut the server down cleanly; one never initialized (or stuck) is killed, so that
    pytest-lsp's own teardown, which waits for the process to end, cannot hang."""
    if client.capabilities is not None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(WAIT):
                await client.shutdown_session()
    server = client._server
    if server is not None and server.returncode is None:
        server.kill()
        await server.wait()
        if client.capabilities is not None:
            pytest.fail("the server did not exit after shutdown and exit")
    elif server is not None and client.capabilities is not None:
        assert server.returncode == 0, "exit after shutdown must be a clean one"


@pytest.fixture
def session(editor: EditorClient, profile: str, tmp_path: Path) -> Session:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Session(editor, profile, workspace)
