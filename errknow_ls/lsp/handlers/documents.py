"""Text document sync: check on open and change, clear on close; what imports the document is
checked again with its new text (the editor's on open and change, the disk's on close)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from errknow_ls.lsp import importers, publishing, scan
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import logs
from errknow_ls.lsp.session import Session


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(session.bind(did_open))
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(session.bind(did_change))
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(session.bind(did_close))


def did_open(session: Session, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    if session.channel.pull_open and uri in session.channel.pushed:
        publishing.push(session, uri, [], None)  # pushed while closed; the client pulls it from now on
    importers.module_changed(session, [uri])
    session.spawn(publishing.refresh(session, uri))
    logs.did_open(session, params)


def did_change(session: Session, params: types.DidChangeTextDocumentParams) -> None:
    importers.module_changed(session, [params.text_document.uri])
    session.spawn(publishing.refresh(session, params.text_document.uri))
    logs.did_change(session, params)


def did_close(session: Session, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    importers.module_changed(session, [uri])
    session.checks.forget(uri)
    session.known_served.pop(uri, None)
    session.known_lookups.pop(uri, None)
    publishing.clear(session, uri)
    logs.did_close(session, params)
    path = to_fs_path(uri)
    if uri in session.scanned and path and Path(path).is_file():
        session.spawn(scan.check_file(session, uri, Path(path)))  # back to what is on disk
