"""What the workspace holds right now, as immutable snapshots a worker thread can check."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace
from rpds import HashTrieMap


@dataclass(frozen=True, slots=True)
class Part:
    """One document of a snapshot: the document itself, or one notebook cell."""

    uri: str
    version: int | None
    text: str


State = tuple[int | None, tuple[tuple[str, int | None], ...]]


@dataclass(frozen=True, slots=True)
class Snapshot:
    key: str
    """The document's URI, or the notebook's."""
    version: int | None
    parts: tuple[Part, ...]
    notebook: bool = False
    """Cells: IPython magics are blanked, and findings go to the cell they are in."""
    unsaved: Mapping[str, str] = field(default_factory=dict, compare=False)
    """The open Python documents' texts by their files' real paths: what the project's modules
    say for the checker (what the user sees, saved or not)."""
    epoch: int = 0
    """How many times a module this document read had changed when the snapshot was taken (see
    ``Checks.invalidate``): a result stands for its version and this count."""

    @property
    def state(self) -> State:
        """What tells this content from another: the version and each part's (a notebook's own
        version does not move when only a cell's text is edited)."""
        return self.version, tuple((part.uri, part.version) for part in self.parts)

    @classmethod
    def of_text(
        cls, uri: str, version: int | None, text: str, unsaved: Mapping[str, str] | None = None
    ) -> Snapshot:
        return cls(uri, version, (Part(uri, version, text),), unsaved=unsaved or {})


PYTHON_IDS = frozenset({"python", "python3", "py"})


def is_open(workspace: Workspace, uri: str) -> bool:
    """An editor holds the document (a text document or a notebook cell)."""
    return unquote(uri) in workspace.text_documents


def open_document(workspace: Workspace, uri: str) -> TextDocument | None:
    """The editor's document, or None once closed; never pygls' ``get_text_document``, which
    makes up a document from the file on disk (any path a client names)."""
    document: TextDocument | None = workspace.text_documents.get(unquote(uri))
    return document


def notebook_of(workspace: Workspace, uri: str) -> types.NotebookDocument | None:
    return workspace.get_notebook_document(cell_uri=uri) or workspace.get_notebook_document(notebook_uri=uri)


def is_python(workspace: Workspace, uri: str) -> bool:
    document = workspace.text_documents.get(unquote(uri))
    if document is None:
        return uri.endswith((".py", ".pyi"))
    return (document.language_id or "python").lower() in PYTHON_IDS or uri.endswith((".py", ".pyi"))


def snapshot_of(workspace: Workspace, uri: str, unsaved: Mapping[str, str] | None = None) -> Snapshot | None:
    """The open document (or the notebook a cell belongs to) as it is now, with the open modules'
    ``unsaved`` texts (``OpenModules.texts``); None once closed."""
    notebook = notebook_of(workspace, uri)
    if notebook is not None:
        return _notebook_snapshot(workspace, notebook)
    document = workspace.text_documents.get(unquote(uri))
    if document is None or not is_python(workspace, uri):
        return None
    return Snapshot.of_text(document.uri, document.version, document.source, unsaved)


@functools.lru_cache(maxsize=4096)
def module_key(uri: str) -> str | None:
    """The real path of the file a ``file:`` URI names, as the project's modules are keyed; None
    for other schemes (an untitled buffer, a notebook cell)."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return os.path.realpath(path) if path else None


@functools.lru_cache(maxsize=4096)
def _module_file(uri: str) -> str | None:
    key = module_key(uri)
    return key if key is not None and key.endswith(".py") else None


class OpenModules:
    """The open ``*.py`` documents' texts, by their files' real paths: one persistent mapping,
    replaced (never changed) at each edit, so that a snapshot keeps the texts it was taken with at
    no cost. Replacing one text shares the rest of the mapping (a hash array mapped trie): a copied
    dict made opening N files cost N²/2 entries copied."""

    def __init__(self) -> None:
        self.texts: HashTrieMap[str, str] = HashTrieMap()

    def update(self, workspace: Workspace, uri: str) -> None:
        """The document at ``uri`` was opened, edited or closed."""
        key = _module_file(uri)
        if key is None:
            return
        document = workspace.text_documents.get(unquote(uri))
        texts = self.texts
        self.texts = texts.discard(key) if document is None else texts.insert(key, document.source)


def _notebook_snapshot(workspace: Workspace, notebook: types.NotebookDocument) -> Snapshot:
    parts = []
    for cell in notebook.cells:
        if cell.kind != types.NotebookCellKind.Code:
            continue
        document = workspace.text_documents.get(unquote(cell.document))
        if document is not None and (document.language_id or "python").lower() in PYTHON_IDS:
            parts.append(Part(document.uri, document.version, document.source))
    return Snapshot(notebook.uri, notebook.version, tuple(parts), notebook=True)
