"""What a check reports: a finding, the fixes it offers, and how safe each fix is."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from errknow_ls.core.positions import Span


class Applicability(enum.StrEnum):
    """How safe a fix is to apply without reading it (as in ruff)."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text in ``span`` with ``content``."""

    span: Span
    content: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A set of edits that applies one of the record's workarounds."""

    title: str
    applicability: Applicability
    edits: tuple[Edit, ...]
    workaround: int | None = None
    """Index into the record's ``workarounds`` this fix makes concrete, if any."""


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a finding (the earlier backward, the definition, ...)."""

    span: Span
    message: str
    path: str | None = None
    """The file it is in, when another than the finding's: a module of the project the check read
    (its absolute path); None: the finding's own file."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in one source text."""

    code: str
    name: str
    record_id: str
    severity: Severity
    message: str
    span: Span
    fixes: tuple[Fix, ...] = ()
    related: tuple[Related, ...] = ()
    tensor: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def preferred_fix(self) -> Fix | None:
        """The first fix, which rules order best first."""
        return self.fixes[0] if self.fixes else None

    @property
    def raises_elsewhere(self) -> Related | None:
        """On a call that reaches a backward in another module of the project: where that backward
        raises (the checker puts it first among the related places); None for a finding on the
        call that raises."""
        first = self.related[0] if self.related else None
        return first if first is not None and first.path is not None else None


NOT_FULLY_CHECKED = "not fully checked"
"""How the checker reports a limit that stopped part of its analysis (never silently): the start
of each such entry of its errors, which the CLI prints as a note and the server shows as an
information diagnostic."""
_LIMIT_LINE = re.compile(rf"{NOT_FULLY_CHECKED}: line (\d+): ")


def limit_note(what: str, line: int | None = None) -> str:
    """The note for a limit: ``not fully checked: line N: what``. ``line`` (1-based) is the
    statement skipped, or the ``def`` of the function a budget stopped; none for the module."""
    where = "" if line is None else f"line {line}: "
    return f"{NOT_FULLY_CHECKED}: {where}{what}"


def read_limit_note(note: str) -> tuple[int | None, str] | None:
    """The line (1-based, if any) and what a ``limit_note`` says, without its line; None if
    ``note`` is not one (a syntax error, an internal error)."""
    if not note.startswith(NOT_FULLY_CHECKED):
        return None
    found = _LIMIT_LINE.match(note)
    if found is None:
        return None, note
    return int(found.group(1)), f"{NOT_FULLY_CHECKED}: {note[found.end() :]}"
