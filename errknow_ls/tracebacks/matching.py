"""Pair each traceback with the record that explains its exception line, if one does."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from errknow_ls.kb import KnowledgeBase, Record
from errknow_ls.tracebacks.model import Traceback


@dataclass(frozen=True, slots=True)
class TracebackMatch:
    traceback: Traceback
    record: Record | None
    """The best record for the exception line; None when no record matches (still worth showing)."""


def match_traceback(kb: KnowledgeBase, traceback: Traceback) -> TracebackMatch:
    """Search every record's pattern in ``Type: message``, whitespace made single spaces so that a
    message re-wrapped at a console's width still matches; the most confident record wins."""
    matches = kb.match(_searched_text(traceback))
    if not matches:
        return TracebackMatch(traceback, None)
    best = max(matches, key=lambda match: (match.record.confidence, -match.start))
    return TracebackMatch(traceback, best.record)


MATCHED_CHARS = 64 * 1024
"""How much of an exception line records are searched in. A message is a few lines; the 50 lines of
1 MB each that a runaway print can make took seconds per record and timed records out."""


def _searched_text(traceback: Traceback) -> str:
    if len(traceback.message) <= MATCHED_CHARS:
        return traceback.exception_line
    head = dataclasses.replace(traceback, message=traceback.message[: 2 * MATCHED_CHARS])
    return head.exception_line[:MATCHED_CHARS]


def match_tracebacks(kb: KnowledgeBase, tracebacks: Iterable[Traceback]) -> list[TracebackMatch]:
    return [match_traceback(kb, traceback) for traceback in tracebacks]
