"""Record regexes compiled with the ``regex`` module and always run under a timeout."""

from __future__ import annotations

from dataclasses import dataclass

import regex

MATCH_TIMEOUT = 0.05
"""Seconds one pattern may spend on one text; a user's catastrophic pattern must never hang us."""

FLAGS = regex.VERSION1 | regex.IGNORECASE


class PatternTimeout(Exception):
    """A record's pattern ran past its time on some text."""


@dataclass(frozen=True, slots=True)
class CompiledPattern:
    source: str
    compiled: regex.Pattern[str]

    def search(self, text: str, timeout: float = MATCH_TIMEOUT) -> regex.Match[str] | None:
        try:
            return self.compiled.search(text, timeout=timeout)
        except TimeoutError as exc:
            raise PatternTimeout(self.source) from exc


def compile_pattern(source: str) -> CompiledPattern:
    """Compile ``source``; raises ``regex.error`` with the reason when it does not compile."""
    return CompiledPattern(source, regex.compile(source, FLAGS))
