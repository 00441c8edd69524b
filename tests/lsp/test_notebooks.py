"""Notebooks (VS Code's notebook sync): code cells checked together, top to bottom, each
diagnostic on its own cell; IPython magics do not stop the check."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from tests.lsp.session import Session
from tests.lsp.test_watching import SECOND_BACKWARD, runtime, shown, terminal

CELLS = [
    "%matplotlib inline\nimport torch\nfrom torch import nn\nmodel = nn.Linear(4, 2)\n",
    "loss = model(torch.randn(3, 4)).pow(2).sum()\nloss.backward()\n",
    "# notes, not code",
    "print('中文é😋'); loss.backward()\n",
]
MARKDOWN = 2


def _open(session: Session) -> list[str]:
    notebook = session.uri("nb.ipynb")
    cells = [f"{notebook}#cell{i}" for i in range(len(CELLS))]
    kinds = [
        types.NotebookCellKind.Markup if i == MARKDOWN else types.NotebookCellKind.Code
        for i in range(len(CELLS))
    ]
    session.client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind=k, document=c) for k, c in zip(kinds, cells, strict=True)],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=c, language_id="markdown" if i == MARKDOWN else "python", version=1, text=t
                )
                for i, (c, t) in enumerate(zip(cells, CELLS, strict=True))
            ],
        )
    )
    session.versions.update(dict.fromkeys(cells, 1))
    return cells


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_cells_are_checked_together_with_diagnostics_on_their_cell(session: Session) -> None:
    result = await session.start()
    assert result.capabilities.notebook_document_sync is not None
    cells = _open(session)
    (diagnostic,) = await session.diagnostics(cells[3])
    line = CELLS[3].splitlines()[0]
    start = line.index("loss.backward()")
    assert diagnostic.code == "EK001"
    assert diagnostic.range.start == types.Position(0, session.column(line, start))
    assert diagnostic.related_information is not None
    (related,) = diagnostic.related_information
    assert related.location.uri == cells[1] and related.location.range.start.line == 1  # the first backward
    assert await session.diagnostics(cells[1]) == []
    assert await session.diagnostics(cells[0]) == []


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_a_cell_edit_rechecks_the_notebook(session: Session) -> None:
    await session.start()
    cells = _open(session)
    assert len(await session.diagnostics(cells[3])) == 1
    session.versions[cells[1]] = 2
    _change_cells(
        session,
        types.NotebookDocumentCellChanges(
            text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=cells[1], version=2),
                    changes=[
                        types.TextDocumentContentChangeWholeDocument(
                            text="loss = model(torch.randn(3, 4)).sum()\n"
                        )
                    ],
                )
            ]
        ),
    )
    assert await session.diagnostics(cells[3]) == []


IPYTHON_RUN = f"""\
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[3], line 2
      1 loss = model(torch.randn(3, 4)).pow(2).sum()
----> 2 loss.backward()

File /opt/conda/lib/python3.11/site-packages/torch/_tensor.py:623, in Tensor.backward(self, gradient)
    621         inputs=inputs,
    622     )
--> 623 torch.autograd.backward(
    624     self, gradient, retain_graph, create_graph, inputs=inputs
    625 )

{SECOND_BACKWARD}
"""


def _executed(session: Session, cells: list[str], counts: dict[int, int]) -> None:
    """The client reports cells run: ``counts`` maps a cell's index to its ``In[N]``."""
    _change_cells(
        session,
        types.NotebookDocumentCellChanges(
            data=[
                types.NotebookCell(
                    kind=types.NotebookCellKind.Code,
                    document=cells[index],
                    execution_summary=types.ExecutionSummary(execution_order=count, success=False),
                )
                for index, count in counts.items()
            ]
        ),
    )


def _change_cells(session: Session, cells: types.NotebookDocumentCellChanges) -> None:
    """Version 2 of the notebook, with these cell changes."""
    session.client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(
                uri=session.uri("nb.ipynb"), version=2
            ),
            change=types.NotebookDocumentChangeEvent(cells=cells),
        )
    )


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_an_ipython_traceback_lands_on_the_cell_that_ran_as_in_n(session: Session) -> None:
    await session.start()
    cells = _open(session)
    _executed(session, cells, {0: 2, 1: 3})
    terminal(session, IPYTHON_RUN, source="vscode-notebook://nb")
    (on_cell,) = await shown(session, cells[1], bool, is_open=True)
    assert on_cell.range.start.line == 1
    assert on_cell.range.start.character == 0
    assert "RuntimeError" in on_cell.message
    assert runtime(await session.diagnostics(cells[0])) == []


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_without_execution_summaries_the_saved_execution_counts_decide(session: Session) -> None:
    saved = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "code", "execution_count": 6, "metadata": {}, "outputs": [], "source": CELLS[0]},
            {"cell_type": "code", "execution_count": 7, "metadata": {}, "outputs": [], "source": CELLS[1]},
        ],
    }
    (session.root / "nb.ipynb").write_text(json.dumps(saved), encoding="utf-8")
    await session.start()
    cells = _open(session)
    terminal(session, IPYTHON_RUN.replace("Cell In[3]", "Cell In[7]"), source="vscode-notebook://nb")
    (on_cell,) = await shown(session, cells[1], bool, is_open=True)
    assert on_cell.range.start.line == 1
