"""Plain data shared by every layer: positions, spans, findings, fixes (stdlib only)."""

from errknow_ls.core.edits import OverlappingEdits, apply_edits
from errknow_ls.core.findings import Applicability, Edit, Finding, Fix, Related, Severity
from errknow_ls.core.positions import Position, Span

__all__ = [
    "Applicability",
    "Edit",
    "Finding",
    "Fix",
    "OverlappingEdits",
    "Position",
    "Related",
    "Severity",
    "Span",
    "apply_edits",
]
