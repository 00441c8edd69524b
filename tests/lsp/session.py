"""An editor session against the real server: open, edit, and wait on what the server sends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.protocol import default_converter
from pygls.protocol.json_rpc import JsonRPCRequestMessage
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.lsp.profiles import PROFILES

WAIT = 30
"""Seconds any one wait may take: a silent server fails the test instead of hanging it."""
T = TypeVar("T")

BUGGY = """\
import torch
from torch import nn

model = nn.Linear(4, 2)
x = torch.randn(3, 4)
loss = model(x).pow(2).sum()
loss.backward()
s = "é中文😋 x"; loss.backward()
"""
BUGGY_LINE = 7
"""0-based line of the second backward, behind a string of 2-, 3- and 4-byte UTF-8 characters
(the 4-byte one two UTF-16 units)."""
CALL = "loss.backward()"
CLEAN = BUGGY.replace('s = "é中文😋 x"; loss.backward()', 's = "é中文😋 x"')


def column(encoding: str, line: str, chars: int) -> int:
    """The column of ``chars`` code points into ``line``, in the negotiated encoding's units."""
    prefix = line[:chars]
    if encoding == types.PositionEncodingKind.Utf8:
        return len(prefix.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(prefix)
    return len(prefix.encode("utf-16-le")) // 2


class EditorClient(LanguageClient):
    """pytest-lsp's client, also keeping every publishDiagnostics (pytest-lsp keeps only the latest
    list per URI, without versions) and answering the server's requests an editor answers."""

    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.published: list[types.PublishDiagnosticsParams] = []
        self.refreshes = asyncio.Event()
        self.registrations: list[types.Registration] = []
        self.registered = asyncio.Event()
        """Set at each client/registerCapability."""


def _publish(client: EditorClient, params: types.PublishDiagnosticsParams) -> None:
    client.published.append(params)
    client.diagnostics[params.uri] = params.diagnostics


def _refresh(client: EditorClient, _params: None) -> None:
    client.diagnostic_refresh_count += 1
    client.refreshes.set()


def _register(client: EditorClient, params: types.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)
    client.registered.set()


def _unregister(client: EditorClient, params: types.UnregistrationParams) -> None:
    gone = {u.id for u in params.unregisterations}
    client.registrations[:] = [r for r in client.registrations if r.id not in gone]


def make_client() -> EditorClient:
    client = EditorClient()
    features = {
        **DEFAULT_CLIENT_FEATURES,
        types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _publish,
        types.WORKSPACE_DIAGNOSTIC_REFRESH: _refresh,
        types.CLIENT_REGISTER_CAPABILITY: _register,
        types.CLIENT_UNREGISTER_CAPABILITY: _unregister,
    }
    register_lsp_features(client, features)
    return client


class Session:
    """One client with one editor profile's capabilities, recording what the server sends."""

    def __init__(self, client: EditorClient, profile: str, root: Path) -> None:
        self.client = client
        self.profile = profile
        self.root = root
        self.caps = PROFILES[profile]()
        self.encoding: str = types.PositionEncodingKind.Utf16
        self.versions: dict[str, int] = {}

    @property
    def published(self) -> list[types.PublishDiagnosticsParams]:
        return self.client.published

    @property
    def refreshes(self) -> asyncio.Event:
        return self.client.refreshes

    @property
    def registrations(self) -> list[types.Registration]:
        return self.client.registrations

    # ------------------------------------------------------------------ what the client can do

    @property
    def pulls(self) -> bool:
        return bool(self.caps.text_document and self.caps.text_document.diagnostic)

    @property
    def pulls_workspace(self) -> bool:
        workspace = self.caps.workspace
        return self.pulls and bool(
            workspace and workspace.diagnostics and workspace.diagnostics.refresh_support
        )

    @property
    def resolves_lazily(self) -> bool:
        code_action = self.caps.text_document.code_action if self.caps.text_document else None
        support = code_action.resolve_support if code_action else None
        return bool(support and "edit" in support.properties)

    # ------------------------------------------------------------------ driving the server

    async def start(self, locale: str | None = None, options: Any = None) -> types.InitializeResult:
        result = await self.client.initialize_session(
            types.InitializeParams(
                capabilities=self.caps,
                root_uri=self.root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=self.root.as_uri(), name="ws")],
                locale=locale,
                initialization_options=options,
            )
        )
        self.encoding = result.capabilities.position_encoding or types.PositionEncodingKind.Utf16
        return result

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def open(self, name: str, text: str) -> str:
        uri = self.uri(name)
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        return uri

    def change(self, uri: str, text: str) -> int:
        return self.edit(uri, types.TextDocumentContentChangeWholeDocument(text=text))

    def edit(self, uri: str, *changes: types.TextDocumentContentChangeEvent) -> int:
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=list(changes),
            )
        )
        return self.versions[uri]

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    async def raw_request(self, method: str, params: Any) -> Any:
        """A request with params as given, not checked against the method's type on the way out."""
        msg_id = f"raw-{len(self.published)}-{method}"
        future: Future[Any] = Future()
        protocol = self.client.protocol
        protocol._request_futures[msg_id] = future
        protocol._send_data(JsonRPCRequestMessage(id=msg_id, method=method, jsonrpc="2.0", params=params))
        async with asyncio.timeout(WAIT):
            return await asyncio.wrap_future(future)

    def column(self, line: str, chars: int) -> int:
        return column(self.encoding, line, chars)

    # ------------------------------------------------------------------ waiting

    async def until(self, method: str, found: Callable[[], T | None]) -> T:
        """``found()``'s first non-None value, checked now and after each ``method`` notification."""
        async with asyncio.timeout(WAIT):
            while (value := found()) is None:
                await self.client.wait_for_notification(method)
            return value

    async def published_for(
        self, uri: str, wanted: Callable[[types.PublishDiagnosticsParams], bool]
    ) -> types.PublishDiagnosticsParams:
        def last() -> types.PublishDiagnosticsParams | None:
            return next((p for p in reversed(self.published) if p.uri == uri and wanted(p)), None)

        return await self.until(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, last)

    async def pull(self, uri: str) -> list[types.Diagnostic]:
        report = await self.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert isinstance(
            report, types.RelatedFullDocumentDiagnosticReport | types.FullDocumentDiagnosticReport
        )
        return list(report.items)

    async def diagnostics(self, uri: str) -> list[types.Diagnostic]:
        """What the editor shows for an open ``uri`` at its current version, by pull or by push."""
        if self.pulls:
            return await self.pull(uri)
        version = self.versions[uri]
        params = await self.published_for(uri, lambda p: p.version == version)
        return list(params.diagnostics)

    async def refreshed(self) -> None:
        """The server asked the client to pull again (``workspace/diagnostic/refresh``)."""
        async with asyncio.timeout(WAIT):
            await self.refreshes.wait()
        self.refreshes.clear()

    async def progress_ended(self) -> None:
        def ended() -> bool | None:
            reports = self.client.progress_reports.values()
            return (
                True if any(isinstance(r, types.WorkDoneProgressEnd) for rs in reports for r in rs) else None
            )

        await self.until(types.PROGRESS, ended)
