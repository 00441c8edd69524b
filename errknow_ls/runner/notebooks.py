"""Reading a Jupyter notebook's code cells, and writing fixed cell sources back into its JSON.

Only the ``source`` of the code cells that a fix changed is replaced; every other byte's worth of
the notebook (outputs, metadata, key order, the other cells) is dumped as it was read, in the
layout Jupyter writes (``nbformat``'s: one-space indent, no ASCII escaping, a final newline).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errknow_ls.runner.sourcefile import SourceFileError

NOTEBOOK_SUFFIX = ".ipynb"
PYTHON_LANGUAGES = frozenset({"python", "python3", "ipython", "ipython3"})


def is_notebook(path: Path) -> bool:
    return path.suffix == NOTEBOOK_SUFFIX


@dataclass(frozen=True, slots=True)
class Notebook:
    data: dict[str, Any]
    """The parsed JSON, in the order it was read."""
    code_cells: tuple[int, ...]
    """Indexes in ``data["cells"]`` of the code cells, in order."""
    indent: int | None
    """The file's indent (nbformat writes 1); ``None``: the whole notebook on one line."""

    def sources(self) -> list[str]:
        return [cell_source(self.data["cells"][index]) for index in self.code_cells]

    def with_sources(self, sources: Sequence[str]) -> str:
        """The notebook's JSON with its code cells' sources replaced (in the form each was in)."""
        cells = list(self.data["cells"])
        for index, source in zip(self.code_cells, sources, strict=True):
            old = cells[index]
            if cell_source(old) != source:
                spelled: str | list[str] = source if isinstance(old["source"], str) else _lines(source)
                cells[index] = {**old, "source": spelled}
        return dump({**self.data, "cells": cells}, self.indent)


def parse_notebook(text: str) -> Notebook:
    """A notebook from its JSON text; raises ``SourceFileError`` on anything that is not nbformat 4 or
    is not a Python notebook (the message says which)."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise SourceFileError(f"not a notebook: not JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise SourceFileError("not a notebook: no 'cells' list (nbformat 4 expected)")
    if data.get("nbformat", 4) != 4:
        raise SourceFileError(f"nbformat {data.get('nbformat')} is not read; nbformat 4 is")
    language = _language(data)
    if language is not None and language.lower() not in PYTHON_LANGUAGES:
        raise SourceFileError(f"not a Python notebook (its language is {language!r})")
    code_cells = []
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict):
            raise SourceFileError(f"not a notebook: cell {index + 1} is not an object")
        if cell.get("cell_type") == "code":
            if not isinstance(cell.get("source"), (str, list)):
                raise SourceFileError(f"not a notebook: cell {index + 1} has no 'source'")
            code_cells.append(index)
    return Notebook(data, tuple(code_cells), _indent(text))


def cell_source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(str(line) for line in source)


def dump(data: dict[str, Any], indent: int | None) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def _lines(source: str) -> list[str]:
    """A source as nbformat stores it: lines with their newline, the last without."""
    return source.splitlines(keepends=True)


def _language(data: dict[str, Any]) -> str | None:
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return None
    for key in ("language_info", "kernelspec"):
        section = metadata.get(key)
        name = (
            section.get("name" if key == "language_info" else "language")
            if isinstance(section, dict)
            else None
        )
        if isinstance(name, str):
            return name
    return None


def _indent(text: str) -> int | None:
    second = text.split("\n", 2)
    if len(second) < 2:
        return None
    line = second[1]
    return len(line) - len(line.lstrip(" ")) or None
