"""Text document sync: check on open and change, clear on close."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from errknow_ls.lsp import publishing, scan
from errknow_ls.lsp.handlers import logs
from errknow_ls.lsp.server import ErrknowServer


def register(server: ErrknowServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)


def did_open(ls: ErrknowServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    if ls.channel.pull_open and uri in ls.channel.pushed:
        publishing.push(ls, uri, [], None)  # pushed while closed; the client pulls it from now on
    ls.spawn(publishing.refresh(ls, uri))
    logs.did_open(ls, params)


def did_change(ls: ErrknowServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.spawn(publishing.refresh(ls, params.text_document.uri))
    logs.did_change(ls, params)


def did_close(ls: ErrknowServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.checks.forget(uri)
    publishing.clear(ls, uri)
    logs.did_close(ls, params)
    path = to_fs_path(uri)
    if uri in ls.scanned and path and Path(path).is_file():
        ls.spawn(scan.check_file(ls, uri, Path(path)))  # back to what is on disk
