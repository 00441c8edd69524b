"""Notebook document sync: a notebook's code cells are checked together, top to bottom."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.lsp import publishing
from errknow_ls.lsp.server import ErrknowServer


def register(server: ErrknowServer) -> None:
    server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)(did_close)


def did_open(ls: ErrknowServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.spawn(publishing.refresh(ls, params.notebook_document.uri))


def did_change(ls: ErrknowServer, params: types.DidChangeNotebookDocumentParams) -> None:
    structure = params.change.cells.structure if params.change.cells else None
    for cell in (structure.did_close or []) if structure else []:
        publishing.clear(ls, cell.uri)  # a deleted cell
    ls.spawn(publishing.refresh(ls, params.notebook_document.uri))


def did_close(ls: ErrknowServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.checks.forget(params.notebook_document.uri)
    for cell in params.cell_text_documents:
        publishing.clear(ls, cell.uri)
