"""A notebook's saved error outputs (``output_type: error``) as parsed tracebacks, one cell each.

Jupyter keeps the traceback as a list of ANSI-coloured strings in IPython's format, beside the
exception's ``ename`` and ``evalue``; those two stand in when the list does not parse.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

from errknow_ls.tracebacks.model import Style, Traceback
from errknow_ls.tracebacks.scanner import read_tracebacks


class NotebookError(ValueError):
    """The text is not a notebook we can read."""


def _error_outputs(notebook: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("no 'cells' list (nbformat 4 expected)")
    for index, cell in enumerate(cells):
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for output in outputs if isinstance(outputs, list) else []:
            if isinstance(output, dict) and output.get("output_type") == "error":
                yield index, output


def _from_output(index: int, output: dict[str, Any]) -> list[Traceback]:
    ename = str(output.get("ename", ""))
    evalue = str(output.get("evalue", ""))
    lines = output.get("traceback")
    text = "\n".join(str(item) for item in lines) if isinstance(lines, list) else ""
    found = [dataclasses.replace(tb, cell=index) for tb in read_tracebacks(text)]
    if ename and not any(tb.exception == ename for tb in found):
        # Nothing parsed (a SyntaxError's output has no header), or not the exception Jupyter saved.
        last = text.count("\n")
        found.append(Traceback(ename, evalue, (), None, 0, last, last, Style.IPYTHON, cell=index))
    return found


def read_notebook(text: str | bytes) -> list[Traceback]:
    """Every traceback saved in the notebook ``text``, in cell order; raises ``NotebookError``."""
    try:
        notebook = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise NotebookError(f"not JSON: {exc}") from exc
    found: list[Traceback] = []
    for index, output in _error_outputs(notebook):
        found.extend(_from_output(index, output))
    return found
