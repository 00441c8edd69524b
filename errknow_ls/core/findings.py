"""What a check reports: a finding, the fixes it offers, and how safe each fix is."""

from __future__ import annotations

import enum
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


NOT_FULLY_CHECKED = "not fully checked"
"""How the checker reports a limit that stopped part of its analysis (never silently): the start
of each such entry of its errors, which the CLI prints as a note."""
