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


def _open(
    session: Session, texts: list[str] = CELLS, markdown: int = MARKDOWN, name: str = "nb.ipynb"
) -> list[str]:
    """Opens a notebook of these cells, the one at ``markdown`` a markdown cell."""
    notebook = session.uri(name)
    cells = [f"{notebook}#cell{i}" for i in range(len(texts))]
    kind = {True: types.NotebookCellKind.Markup, False: types.NotebookCellKind.Code}
    session.client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[types.NotebookCell(kind=kind[i == markdown], document=c) for i, c in enumerate(cells)],
            ),
            cell_text_documents=[
                types.TextDocumentItem(c, "markdown" if i == markdown else "python", 1, t)
                for i, (c, t) in enumerate(zip(cells, texts, strict=True))
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
    # Lines in the message are the cells' own, never lines of the cells joined.
    assert diagnostic.message.endswith("the backward at cell 2, line 2 already freed its graph")
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
async def test_an_ipython_traceback_lands_on_the_cell_that_ran_as_in_n_and_follows_its_edits(
    session: Session,
) -> None:
    await session.start()
    cells = _open(session)
    _executed(session, cells, {0: 2, 1: 3})
    terminal(session, IPYTHON_RUN, source="vscode-notebook://nb")
    (on_cell,) = await shown(session, cells[1], bool, is_open=True)
    assert on_cell.range.start.line == 1
    assert on_cell.range.start.character == 0
    assert "RuntimeError" in on_cell.message
    assert runtime(await session.diagnostics(cells[0])) == []
    # The error follows the cell's edits: one line down with a line added above, gone once its line changes.
    start = types.Position(0, 0)
    _set_cell(
        session,
        session.uri("nb.ipynb"),
        cells[1],
        types.TextDocumentContentChangePartial(range=types.Range(start, start), text="# first, the loss\n"),
    )
    (on_cell,) = runtime(await session.pull(cells[1]))
    assert on_cell.range.start.line == 2  # the same text, one line down
    end = types.Position(2, len("loss.backward()"))
    _set_cell(
        session,
        session.uri("nb.ipynb"),
        cells[1],
        types.TextDocumentContentChangePartial(range=types.Range(end, end), text="  # once"),
    )
    assert runtime(await session.pull(cells[1])) == []


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


TRAINING = [
    "import torch\nfrom torch import nn\nmodel = nn.Linear(4, 2)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\nx = torch.randn(3, 4)\n",
    "# The loop",
    "loss = model(x).pow(2).sum()\nfor step in range(3):\n"
    "    opt.zero_grad()\n    loss.backward()\n    opt.step()\n",
]


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """ASCII cells: UTF-16 columns are code points."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[: position.line]) + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def _set_cell(
    session: Session, notebook: str, cell: str, change: str | types.TextDocumentContentChangePartial
) -> None:
    """The cell's new text, or an edit in it (as VS Code sends them)."""
    session.versions[cell] += 1
    session.client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            # VS Code's notebook version stays as it is when only a cell's text changes.
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook, version=1),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(
                                uri=cell, version=session.versions[cell]
                            ),
                            changes=[
                                types.TextDocumentContentChangeWholeDocument(text=change)
                                if isinstance(change, str)
                                else change
                            ],
                        )
                    ]
                )
            ),
        )
    )


async def _preferred_edits(session: Session, cell: str, diagnostic: types.Diagnostic) -> list[types.TextEdit]:
    """The edits of the code action the server prefers for ``diagnostic``, all in ``cell``."""
    actions = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(cell),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    preferred = next(a for a in actions or [] if isinstance(a, types.CodeAction) and a.is_preferred)
    if preferred.edit is None:
        preferred = await session.client.code_action_resolve_async(preferred)
    assert preferred.edit is not None and preferred.edit.document_changes
    (change,) = preferred.edit.document_changes
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.uri == cell
    return [e for e in change.edits if isinstance(e, types.TextEdit)]


async def _refreshes(session: Session, count: int) -> None:
    """Until the server has asked the client to pull again ``count`` times in all."""
    while session.client.diagnostic_refresh_count < count:
        await session.refreshed()


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_a_fix_applied_in_a_cell_leaves_no_stale_diagnostic(session: Session) -> None:
    await session.start()
    cells = _open(session, TRAINING, markdown=1, name="train.ipynb")
    (diagnostic,) = await session.diagnostics(cells[2])
    assert diagnostic.code == "EK002" and diagnostic.range.start.line == 3
    assert "line 1" in diagnostic.message and "cell" in diagnostic.message
    edits = await _preferred_edits(session, cells[2], diagnostic)
    refreshed = session.client.diagnostic_refresh_count
    _set_cell(session, session.uri("train.ipynb"), cells[2], _apply(TRAINING[2], edits))
    await _refreshes(session, refreshed + 1)  # every cell's diagnostics are to be pulled again
    for cell in (cells[0], cells[2]):
        assert await session.pull(cell) == []


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_in_chinese_the_message_names_the_cell_too(session: Session) -> None:
    await session.start(locale="zh-cn")
    cells = _open(session)
    (diagnostic,) = await session.diagnostics(cells[3])
    assert "第 2 个单元格第 2 行的反向传播" in diagnostic.message, diagnostic.message


INDENTED = [
    "  " + TRAINING[0].replace("\n", "\n  ").rstrip(" "),
    TRAINING[1],
    "  " + TRAINING[2].replace("\n", "\n  ").rstrip(" "),
]


@pytest.mark.parametrize("profile", ["vscode-modern"], indirect=True)
async def test_an_indented_cell_is_checked_and_fixed_at_its_own_columns(session: Session) -> None:
    """A cell whose first line is indented runs in IPython without it (`leading_indent`): the
    diagnostic is at the cell's own column, and the preferred fix, applied as the editor applies
    it, leaves the cell indented as it was and the notebook clean."""
    await session.start()
    cells = _open(session, INDENTED, markdown=1, name="indented.ipynb")
    (diagnostic,) = await session.diagnostics(cells[2])
    assert diagnostic.code == "EK002"
    assert diagnostic.range.start == types.Position(3, INDENTED[2].splitlines()[3].index("loss.backward()"))
    fixed = _apply(INDENTED[2], await _preferred_edits(session, cells[2], diagnostic))
    assert all(line.startswith("  ") for line in fixed.splitlines())  # the cell's indentation kept
    refreshed = session.client.diagnostic_refresh_count
    _set_cell(session, session.uri("indented.ipynb"), cells[2], fixed)
    await _refreshes(session, refreshed + 1)
    for cell in (cells[0], cells[2]):
        assert await session.pull(cell) == []
