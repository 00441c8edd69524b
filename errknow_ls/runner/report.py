"""What a ``check`` run found, as every output format reads it."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from errknow_ls.core import Finding, Position
from errknow_ls.runner.engine import FileResult
from errknow_ls.runner.fixing import applicable, hidden
from errknow_ls.runner.notebooks import parse_notebook
from errknow_ls.runner.sourcefile import SourceFileError, decode_source, read_bytes

if TYPE_CHECKING:
    from errknow_ls.kb import KnowledgeBase


class NoticeKind(enum.StrEnum):
    ERROR = "error"
    """The file could not be read, decoded or written: the run exits 2."""
    SYNTAX_ERROR = "syntax error"
    """Part of the file does not parse; the rest is still checked."""
    WARNING = "warning"
    NOTE = "note"
    """Part of the file was not checked: a limit of the checker stopped it (the note names it)."""


@dataclass(frozen=True, slots=True)
class Notice:
    """A problem with a file rather than in it; stderr shows it as ``path: kind: message``."""

    path: Path
    kind: NoticeKind
    message: str

    @property
    def is_error(self) -> bool:
        return self.kind is NoticeKind.ERROR

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.message}"


@dataclass(frozen=True, slots=True)
class Report:
    results: list[FileResult]
    """One per file, sorted by path (but none for a file the cache knows to hold nothing to say:
    ``check_files_cached``); findings in each sorted by position."""
    kb: Callable[[], KnowledgeBase]
    """Loads the knowledge base, for the formats that show records (a warm run may need none)."""
    fix: bool = False
    unsafe_fixes: bool = False
    notices: list[Notice] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(notice.is_error for notice in self.notices)

    def findings(self) -> Iterator[tuple[Path, Finding]]:
        for result in self.results:
            for finding in result.findings:
                yield result.path, finding

    def located(self) -> Iterator[Located]:
        """Each finding with its file and, in a notebook, its cell."""
        for result in self.results:
            cells = result.cells or (None,) * len(result.findings)
            for finding, cell in zip(result.findings, cells, strict=True):
                yield Located(result, cell, finding)

    @property
    def remaining(self) -> int:
        return sum(len(result.findings) for result in self.results)

    @property
    def fixed(self) -> int:
        return sum(result.fixed for result in self.results)

    @property
    def fixable(self) -> int:
        return sum(1 for _, f in self.findings() if applicable(f.preferred_fix, self.unsafe_fixes))

    @property
    def hidden_fixes(self) -> int:
        return sum(1 for _, f in self.findings() if hidden(f.preferred_fix, self.unsafe_fixes))

    def is_fixable(self, finding: Finding) -> bool:
        return applicable(finding.preferred_fix, self.unsafe_fixes)


@dataclass(frozen=True, slots=True)
class Located:
    result: FileResult
    cell: int | None
    """In a notebook: the code cell (0-based), whose own lines the finding's positions count."""
    finding: Finding

    @property
    def path(self) -> Path:
        return self.result.path

    @property
    def where(self) -> str:
        """``path:row:col``, or ``path:cell N:row:col`` in a notebook (N counts code cells from 1)."""
        start = self.finding.span.start
        cell = "" if self.cell is None else f"cell {self.cell + 1}:"
        return f"{self.path}:{cell}{start.line + 1}:{start.character + 1}"

    def source(self) -> str | None:
        """The text the finding's positions count in (its cell's, in a notebook); ``None`` when the
        file can no longer be read as it was checked."""
        text = self.result.fixed_text or self.result.original
        try:
            if text is None:
                text = decode_source(self.path, read_bytes(self.path)).text
            if self.cell is None:
                return text
            return parse_notebook(text).sources()[self.cell]
        except (SourceFileError, IndexError):
            return None


def row_column(position: Position) -> dict[str, int]:
    """A 0-based code-point position as 1-based ``row`` and ``column`` (as ruff's JSON has them)."""
    return {"row": position.line + 1, "column": position.character + 1}
