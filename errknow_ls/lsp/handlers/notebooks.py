"""Notebook document sync: a notebook's code cells are checked together, top to bottom."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.lsp import publishing
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.session import Session


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)(session.bind(did_open))
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)(session.bind(did_change))
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)(session.bind(did_close))


def did_open(session: Session, params: types.DidOpenNotebookDocumentParams) -> None:
    session.spawn(publishing.refresh(session, params.notebook_document.uri))


def did_change(session: Session, params: types.DidChangeNotebookDocumentParams) -> None:
    structure = params.change.cells.structure if params.change.cells else None
    for cell in (structure.did_close or []) if structure else []:
        publishing.clear(session, cell.uri)  # a deleted cell
    session.spawn(publishing.refresh(session, params.notebook_document.uri))


def did_close(session: Session, params: types.DidCloseNotebookDocumentParams) -> None:
    session.checks.forget(params.notebook_document.uri)
    for cell in params.cell_text_documents:
        publishing.clear(session, cell.uri)
