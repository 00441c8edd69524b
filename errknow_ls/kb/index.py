"""The loaded knowledge base: look records up by id and match messages against them."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import regex

from errknow_ls.kb.loader import LoadedRecord, LoadResult, Problem, load
from errknow_ls.kb.model import Record
from errknow_ls.kb.patterns import PatternTimeout

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordMatch:
    record: Record
    start: int
    end: int


class KnowledgeBase:
    """Records by id; a record whose pattern times out is disabled, with a problem saying so."""

    def __init__(self, result: LoadResult) -> None:
        self._loaded = dict(result.records)
        self.problems: list[Problem] = list(result.problems)
        self.sources = list(result.sources)
        self.disabled: dict[str, str] = {}

    @classmethod
    def load(cls, directories: Iterable[Path] = (), *, builtin: bool = True) -> KnowledgeBase:
        return cls(load(directories, builtin=builtin))

    def __len__(self) -> int:
        return len(self._loaded)

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._loaded

    @property
    def records(self) -> list[Record]:
        return [loaded.record for loaded in self._loaded.values()]

    def get(self, record_id: str) -> Record | None:
        loaded = self._loaded.get(record_id)
        return loaded.record if loaded else None

    def path_of(self, record_id: str) -> str | None:
        loaded = self._loaded.get(record_id)
        return loaded.path if loaded else None

    def match(self, text: str) -> list[RecordMatch]:
        """Every enabled record whose pattern is found in ``text``."""
        matches = []
        for record_id, loaded in list(self._loaded.items()):
            found = self._search(record_id, loaded, text)
            if found is not None:
                matches.append(RecordMatch(loaded.record, found.start(), found.end()))
        return matches

    def _search(self, record_id: str, loaded: LoadedRecord, text: str) -> regex.Match[str] | None:
        if record_id in self.disabled:
            return None
        try:
            return loaded.pattern.search(text)
        except PatternTimeout:
            reason = "regex timed out; record disabled"
            self.disabled[record_id] = reason
            self.problems.append(Problem(loaded.path, "regex", reason))
            log.warning("%s: regex: %s", loaded.path, reason)
            return None
