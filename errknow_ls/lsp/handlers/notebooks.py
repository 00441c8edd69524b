"""Notebook document sync: a notebook's code cells are checked together, top to bottom; after any
edit every cell's diagnostics are sent again, and a run's errors follow the edited cells."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.lsp import publishing
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import logs
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
    for content in (params.change.cells.text_content or []) if params.change.cells else []:
        if session.output.sources.get(content.document.uri):
            logs.source_edited(session, content.document.uri, content.changes)
    session.spawn(publishing.refresh(session, params.notebook_document.uri))


def did_close(session: Session, params: types.DidCloseNotebookDocumentParams) -> None:
    session.checks.forget(params.notebook_document.uri)
    for cell in params.cell_text_documents:
        publishing.clear(session, cell.uri)
