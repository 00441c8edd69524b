"""The loaded knowledge base: look records up by id and match messages against them.

Matching runs only the regexes a message could match: each record is filed under a run of text
each of its alternatives requires (``literals``), the rarest in the knowledge base, and the runs
found in a message pick the records worth running. Matching is the same as running every regex, in the same
order; only the cost changes, from the number of records to the number of candidates.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import ahocorasick
import regex

from errknow_ls.kb.explain import in_language
from errknow_ls.kb.literals import Branch, required_runs
from errknow_ls.kb.loader import LoadedRecord, LoadResult, Problem, load
from errknow_ls.kb.model import Record
from errknow_ls.kb.patterns import PatternTimeout

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordMatch:
    record: Record
    start: int
    end: int


MIN_KEY = 3
"""A key shorter than this would be found all over every message: such a record is tested on each."""


@dataclass(frozen=True, slots=True)
class _Filed:
    """A record and the text a message must hold for its regex to be worth running."""

    order: int
    record_id: str
    branches: tuple[Branch, ...] | None
    """``None``: always run the regex."""

    def worth_running(self, folded: str) -> bool:
        if self.branches is None:
            return True
        return any(all(run in folded for run in branch) for branch in self.branches)


class Prefilter:
    """Records filed under one required run of each alternative (the one fewest records require);
    one Aho-Corasick pass over a casefolded message finds every run filed, and the records filed
    under them are the candidates."""

    def __init__(self, patterns: Iterable[tuple[str, str]]) -> None:
        """``patterns``: each record's id and regex source, in order."""
        filed = [_Filed(order, rid, required_runs(source)) for order, (rid, source) in enumerate(patterns)]
        frequency = Counter(run for record in filed for run in {r for b in record.branches or () for r in b})
        self._by_key: dict[str, list[_Filed]] = defaultdict(list)
        self._everywhere: list[_Filed] = []
        for record in filed:
            keys = [_rarest(branch, frequency) for branch in record.branches or [()]]
            chosen = [key for key in keys if key is not None]
            if record.branches is None or len(chosen) < len(keys):
                self._everywhere.append(record)
                continue
            for key in dict.fromkeys(chosen):
                self._by_key[key].append(record)
        self._automaton = ahocorasick.Automaton()
        for key in self._by_key:
            self._automaton.add_word(key, key)
        if self._by_key:
            self._automaton.make_automaton()

    def candidates(self, text: str) -> list[str]:
        folded = fold(text)
        found = {record.order: record for record in self._everywhere if record.worth_running(folded)}
        if self._by_key:
            for key in {key for _, key in self._automaton.iter(folded)}:
                for record in self._by_key[key]:
                    if record.order not in found and record.worth_running(folded):
                        found[record.order] = record
        return [found[order].record_id for order in sorted(found)]


def fold(text: str) -> str:
    """``text`` as the runs are compared with: casefolded, and where the matcher's case rules
    differ from casefold's on ASCII letters, folded its way (U+0130 casefolds to i + U+0307 and U+0131 to
    itself; the regex matches both as i)."""
    return text.casefold().replace("\u0307", "").replace("\u0131", "i")


def _rarest(branch: Branch, frequency: Counter[str]) -> str | None:
    """The run fewest records require (the longest of those), as long as ``MIN_KEY`` at least."""
    runs = [run for run in branch if len(run) >= MIN_KEY]
    return min(runs, key=lambda run: (frequency[run], -len(run), run)) if runs else None


class KnowledgeBase:
    """Records by id; a record whose pattern times out is disabled, with a problem saying so."""

    def __init__(self, result: LoadResult) -> None:
        self._loaded = dict(result.records)
        self._renamed = dict(result.renamed)
        self.problems: list[Problem] = list(result.problems)
        self.sources = list(result.sources)
        self.disabled: dict[str, str] = {}
        self._prefilter: Prefilter | None = None
        self._signatures: dict[str, Mapping[str, str]] = {}

    @classmethod
    def load(cls, directories: Iterable[Path] = (), *, builtin: bool = True) -> KnowledgeBase:
        return cls(load(directories, builtin=builtin))

    def __len__(self) -> int:
        return len(self._loaded)

    def __contains__(self, record_id: object) -> bool:
        return isinstance(record_id, str) and self.resolve(record_id) is not None

    @property
    def records(self) -> list[Record]:
        return [loaded.record for loaded in self._loaded.values()]

    def resolve(self, record_id: str) -> str | None:
        """The id of the record known as ``record_id``: its id, or one it had before a rename
        (``former_ids``), so that caches, settings and links with an old id keep working."""
        return record_id if record_id in self._loaded else self._renamed.get(record_id)

    def _find(self, record_id: str) -> LoadedRecord | None:
        current = self.resolve(record_id)
        return None if current is None else self._loaded[current]

    def get(self, record_id: str) -> Record | None:
        """The record with ``record_id``, current or former."""
        loaded = self._find(record_id)
        return loaded.record if loaded else None

    def path_of(self, record_id: str) -> str | None:
        loaded = self._find(record_id)
        return loaded.path if loaded else None

    def source_of(self, record_id: str) -> str | None:
        """The record directory its file was loaded from (the innermost, should two nest)."""
        path = self.path_of(record_id)
        if path is None:
            return None
        holding = [source for source in self.sources if Path(path).is_relative_to(source)]
        return max(holding, key=len, default=None)

    def signatures(self, lang: str = "en") -> Mapping[str, str]:
        """Each record's signature by id, in ``lang`` where the record has it (what a link to a
        related record shows); built once per language."""
        if lang not in self._signatures:
            self._signatures[lang] = MappingProxyType(
                {
                    rid: in_language(loaded.record.signature_zh, loaded.record.signature, lang)
                    for rid, loaded in self._loaded.items()
                }
            )
        return self._signatures[lang]

    def match(self, text: str) -> list[RecordMatch]:
        """Every enabled record whose pattern is found in ``text``, in the order they were loaded."""
        if self._prefilter is None:
            self._prefilter = Prefilter((rid, loaded.pattern.source) for rid, loaded in self._loaded.items())
        return self._matches(text, self._prefilter.candidates(text))

    def match_every_record(self, text: str) -> list[RecordMatch]:
        """``match`` without the prefilter: every regex runs (what the prefilter is tested against)."""
        return self._matches(text, list(self._loaded))

    def _matches(self, text: str, record_ids: Iterable[str]) -> list[RecordMatch]:
        matches = []
        for record_id in record_ids:
            loaded = self._loaded[record_id]
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
