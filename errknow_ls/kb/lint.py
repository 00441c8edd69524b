"""``records lint``: everything the schema cannot say about a record, as ``path: field: problem``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import regex

from errknow_ls.kb.loader import LoadedRecord, Problem, parse_record, record_files
from errknow_ls.kb.model import Record
from errknow_ls.kb.patterns import PatternTimeout

_HAN = regex.compile(r"\p{Han}")
_LATIN = regex.compile(r"[A-Za-z]")
MIN_HAN_SHARE = 0.2
"""Han characters among the letters of a ``_zh`` text; code names in it are Latin, the prose is not."""


def is_chinese(text: str) -> bool:
    han = len(_HAN.findall(text))
    latin = len(_LATIN.findall(text))
    return han > 0 and han / (han + latin) >= MIN_HAN_SHARE


def _check_zh(where: str, loaded: LoadedRecord) -> Iterator[Problem]:
    record = loaded.record
    for name in ("signature_zh", "root_cause_zh"):
        text = getattr(record, name)
        if not text.strip():
            yield Problem(where, name, "empty")
        elif not is_chinese(text):
            yield Problem(where, name, "not Chinese text")
    for name, english in (("workarounds_zh", "workarounds"), ("dead_ends_zh", "dead_ends")):
        translated, originals = getattr(record, name), getattr(record, english)
        if len(translated) != len(originals):
            yield Problem(where, name, f"has {len(translated)}, {english} has {len(originals)}")
        for i, text in enumerate(translated):
            if not is_chinese(text):
                yield Problem(where, f"{name}.{i}", "not Chinese text")


def _check_texts(where: str, loaded: LoadedRecord) -> Iterator[Problem]:
    record = loaded.record
    for i, dead_end in enumerate(record.dead_ends):
        if not dead_end.action.strip():
            yield Problem(where, f"dead_ends.{i}.action", "empty")
        if not dead_end.why_fails.strip():
            yield Problem(where, f"dead_ends.{i}.why_fails", "empty")
    for i, workaround in enumerate(record.workarounds):
        if not workaround.action.strip():
            yield Problem(where, f"workarounds.{i}.action", "empty")


def _check_pattern(where: str, loaded: LoadedRecord) -> Iterator[Problem]:
    record = loaded.record
    texts = [("signature", record.signature)]
    texts += [(f"aliases.{i}", alias) for i, alias in enumerate(record.aliases)]
    for name, text in texts:
        try:
            if loaded.pattern.search(text) is None:
                yield Problem(where, "regex", f"does not match {name}")
        except PatternTimeout:
            yield Problem(where, "regex", f"timed out on {name}")


def _check_numbers(where: str, loaded: LoadedRecord) -> Iterator[Problem]:
    """A rate is taken from a cited source or measured by the project; either way it names it."""
    record = loaded.record
    for i, dead_end in enumerate(record.dead_ends):
        if dead_end.fail_rate is not None and not dead_end.sources:
            yield Problem(
                where, f"dead_ends.{i}.fail_rate", "no source (cite one, measure it, or leave it out)"
            )
    for i, workaround in enumerate(record.workarounds):
        if workaround.success_rate is not None and not workaround.sources:
            yield Problem(
                where, f"workarounds.{i}.success_rate", "no source (cite one, measure it, or leave it out)"
            )
    if record.fix_success_rate is not None and not record.cited("fix_success_rate"):
        yield Problem(where, "fix_success_rate", "no citation (cite one, measure it, or leave it out)")


def _claims(record: Record) -> dict[str, int]:
    """The field paths a citation may support, with how many items each list field has."""
    return {
        "aliases": len(record.aliases),
        "versions": len(record.versions),
        "dead_ends": len(record.dead_ends),
        "workarounds": len(record.workarounds),
        "signature": 0,
        "regex": 0,
        "root_cause": 0,
        "fix_success_rate": 0,
        "official_doc_url": 0,
    }


def _names_a_claim(record: Record, supports: str) -> bool:
    name, _, rest = supports.partition(".")
    claims = _claims(record)
    if name not in claims:
        return False
    if not rest:
        return True
    index = rest.split(".", maxsplit=1)[0]
    return index.isdigit() and int(index) < claims[name]


def _check_citations(where: str, loaded: LoadedRecord) -> Iterator[Problem]:
    """Every older wording (alias) is backed by a citation; every citation backs something."""
    record = loaded.record
    for i in range(len(record.aliases)):
        if not record.cited(f"aliases.{i}"):
            yield Problem(where, f"aliases.{i}", "no citation backs this wording")
    for i, citation in enumerate(record.citations):
        if not _names_a_claim(record, citation.supports):
            yield Problem(where, f"citations.{i}.supports", f"{citation.supports!r} names no field")


def _check_cited(where: str, loaded: LoadedRecord) -> Iterator[Problem]:
    """A ``cited`` record (an error not reproduced here) stands on its sources: its signature quotes
    a public report, and each workaround names where it was shown to work."""
    record = loaded.record
    if record.verification_tier != "cited":
        return
    if not record.cited("signature"):
        yield Problem(where, "signature", "a cited record cites no report that quotes it")
    for i, workaround in enumerate(record.workarounds):
        if not workaround.sources:
            yield Problem(where, f"workarounds.{i}.sources", "a cited record names no source for it")


def lint_record(loaded: LoadedRecord) -> list[Problem]:
    where = loaded.path
    return [
        *_check_pattern(where, loaded),
        *_check_zh(where, loaded),
        *_check_texts(where, loaded),
        *_check_numbers(where, loaded),
        *_check_citations(where, loaded),
        *_check_cited(where, loaded),
    ]


def _check_claims(loaded: list[LoadedRecord]) -> Iterator[Problem]:
    """A record's regex must not find another record's signature or aliases: one message, one record."""
    for item in loaded:
        for other in loaded:
            if other.record.id == item.record.id:
                continue
            texts = [("signature", other.record.signature)]
            texts += [(f"aliases.{i}", alias) for i, alias in enumerate(other.record.aliases)]
            for name, text in texts:
                try:
                    found = item.pattern.search(text) is not None
                except PatternTimeout:
                    continue  # reported by the record's own check
                if found:
                    yield Problem(item.path, "regex", f"also matches {other.record.id}'s {name}")


_MIRROR = {
    "leads_to": "preceded_by",
    "preceded_by": "leads_to",
    "frequently_confused_with": "frequently_confused_with",
}
"""Each edge's list on the record at its other end: the graph reads the same from both ends."""


def _check_graph(loaded: list[LoadedRecord], known: set[str]) -> Iterator[Problem]:
    """Every target exists; a target linted alongside names the record back (a known record from
    elsewhere, such as a built-in one under a user's record, cannot be edited, so it is not asked)."""
    linted = {item.record.id: item.record.transition_graph for item in loaded}
    for item in loaded:
        graph = item.record.transition_graph
        for name, mirror in _MIRROR.items():
            for i, target in enumerate(getattr(graph, name)):
                field = f"transition_graph.{name}.{i}"
                if target not in known:
                    yield Problem(item.path, field, f"unknown record {target!r}")
                elif target in linted and item.record.id not in getattr(linted[target], mirror):
                    yield Problem(
                        item.path, field, f"{target!r} does not list {item.record.id!r} in {mirror}"
                    )


def _check_former_ids(loaded: list[LoadedRecord], ids: dict[str, str]) -> Iterator[Problem]:
    """A former id names one record only: not another record's id, not another's former id."""
    claimed: dict[str, str] = {}
    for item in loaded:
        for i, former in enumerate(item.record.former_ids):
            field = f"former_ids.{i}"
            if former in ids:
                yield Problem(item.path, field, f"{former!r} is the id of {ids[former]}")
            elif former in claimed:
                yield Problem(item.path, field, f"{former!r} is also a former id in {claimed[former]}")
            claimed.setdefault(former, item.path)


def lint(directories: Iterable[Path], known_ids: Iterable[str] = ()) -> list[Problem]:
    """Lint every record file below ``directories``; ``known_ids`` may be referenced too."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    good: list[LoadedRecord] = []
    for directory in directories:
        if not directory.is_dir():
            problems.append(Problem(str(directory), "(dir)", "not a directory"))
            continue
        for path in record_files(directory):
            loaded, found = parse_record(path)
            problems.extend(found)
            if loaded is None:
                continue
            record_id = loaded.record.id
            if record_id in seen:
                problems.append(Problem(loaded.path, "id", f"{record_id!r} also in {seen[record_id]}"))
            seen[record_id] = loaded.path
            problems.extend(lint_record(loaded))
            good.append(loaded)
    problems.extend(_check_former_ids(good, seen))
    problems.extend(_check_graph(good, set(seen) | set(known_ids)))
    problems.extend(_check_claims(good))
    return problems
