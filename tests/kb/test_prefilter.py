"""The prefilter never changes what matches: only which regexes are run to find out.

Against running every regex: on every shipped record and every message the tests hold, and on
random records and messages (hypothesis), case folding's oddities (``ß``, Kelvin ``K``, long ``s`` (U+017F),
ligatures) included.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from errknow_ls.kb import KnowledgeBase
from errknow_ls.kb.index import MIN_KEY, Prefilter
from errknow_ls.kb.literals import required_runs
from errknow_ls.kb.patterns import PatternTimeout, compile_pattern
from tests.kb.test_index import OTHER_ERRORS, WORDINGS
from tests.support import RECORDS, REPO

FIXTURE_DIRS = [path for path in (REPO / "tests").rglob("fixtures") if path.is_dir()]


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _texts(path: Path) -> Iterator[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return
    if path.suffix == ".json":
        with contextlib.suppress(ValueError):
            yield from _strings(json.loads(text))
    yield from text.splitlines()


def messages() -> list[str]:
    """Every line and JSON string of the test fixtures and the records, and the known wordings."""
    found = {*WORDINGS.values(), *OTHER_ERRORS.values()}
    for directory in [*FIXTURE_DIRS, RECORDS]:
        for path in directory.rglob("*"):
            if path.is_file():
                found.update(line for line in _texts(path) if line.strip())
    variants = set()
    for message in found:
        variants.update({message, message.upper(), message.lower(), " ".join(message.split())})
    return sorted(variants)


@pytest.fixture(scope="module")
def builtin_kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def test_every_message_matches_as_if_every_regex_ran(builtin_kb: KnowledgeBase) -> None:
    texts = messages()
    assert len(texts) > 1000
    matched = 0
    for text in texts:
        expected = builtin_kb.match_every_record(text)
        assert builtin_kb.match(text) == expected, text
        matched += bool(expected)
    assert matched > 50, "the messages exercise the records"


def test_a_message_runs_few_regexes(builtin_kb: KnowledgeBase) -> None:
    prefilter = Prefilter((record.id, record.regex) for record in builtin_kb.records)
    for text in [*WORDINGS.values(), *OTHER_ERRORS.values()]:
        assert 1 <= len(prefilter.candidates(text)) <= 3, text
    assert prefilter.candidates("epoch 3 step 1200 loss 0.0413") == []


def test_every_shipped_regex_is_read() -> None:
    """No shipped record needs its regex run on every message."""
    for path in RECORDS.rglob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "regex" in data:
            runs = required_runs(data["regex"])
            assert runs is not None and all(any(len(run) >= MIN_KEY for run in branch) for branch in runs), (
                path
            )


@pytest.mark.parametrize(
    ("pattern", "runs"),
    [
        (r"Expected input batch_size \(\d+\)", (("expected input batch_size (", ")"),)),
        (r"a leaf (?:x|y) used|size mismatch, m1", (("a leaf ", " used"), ("size mismatch, m1",))),
        (r"Target -?\d+ is", (("target ", " is"),)),
        (r"ab{2}c x+y z*", (("a", "c ", "y "),)),
        (r"\x41bc \N{BULLET} done\.", ((" ", " done."),)),
        (r"[[a-z]--[aeiou]]x [^]] y", (("x ", " y"),)),
        # A "]" first in a nested set is a character too: the set runs to the last "]", "a" in it.
        (r" *[[]}]a.b?]{", ((),)),
        (r"(?i)Straße über alles", (("stra", "e ", "ber alles"),)),
        (r"(?x) spaced out", None),
        (r"(?V0)[[]x", None),
        (r"unbalanced (", None),
        (r"trailing \\", (("trailing \\",),)),
        (r"also|", (("also",), ())),
    ],
)
def test_required_runs(pattern: str, runs: tuple[tuple[str, ...], ...] | None) -> None:
    assert required_runs(pattern) == runs


WORDS = [
    "backward", "graph", "second", "time", "Tensor", "size", "mismatch", "expected", "got", "CUDA",
    "ss", "SS", "ß", "ẞ", "straße", "STRASSE", "k", "K", "\u212a", "s", "\u017f", "st", "ﬆ", "fi", "ﬁ", "ff",
    "ﬀ", "i", "I", "İ", "\u0131", "0", "12", "x", "_", "a_b",
]  # fmt: skip
SEPARATORS = [" ", "", ".", ", ", "(", ")", "[", "]", ": ", "-", "'", "\n", "\t", "é", "  "]
PIECES = [
    r"\d+", r"\w+", r"[\d, ]+", r"\(", r"\)", r"\.", ".", r"\s*", r"\b", "?", "+", "{1,2}", "{e<=1}",
    r"(?:ss|k)", r"[a-z]", r"[[a-z]--[aeiou]]", r"\x41", r"(?i)", r"(?x)", "(?=graph)", r"\N{BULLET}",
]  # fmt: skip


def _piece() -> st.SearchStrategy[str]:
    word = st.sampled_from(WORDS)
    escaped = word.map(regex.escape)
    return st.one_of(word, escaped, st.sampled_from(PIECES), st.sampled_from(SEPARATORS))


def _pattern() -> st.SearchStrategy[str]:
    branch = st.lists(_piece(), min_size=1, max_size=8).map("".join)
    return st.lists(branch, min_size=1, max_size=3).map("|".join)


def _message() -> st.SearchStrategy[str]:
    parts = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=14)
    return parts.map(lambda pairs: "".join(word + sep for word, sep in pairs))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_pattern(), min_size=1, max_size=12), st.lists(_message(), min_size=1, max_size=6))
@example(["i "], ["İ "])  # found by CI: İ casefolds to i + U+0307, which the regex still matches as i
@example(["I "], ["\u0131 "])  # dotless i (U+0131), which casefold leaves alone, matches I
def test_random_records_and_messages(sources: list[str], texts: list[str]) -> None:
    compiled = []
    for source in sources:
        try:
            compiled.append(compile_pattern(source))
        except (regex.error, ValueError, OverflowError):
            continue
    prefilter = Prefilter((str(i), pattern.source) for i, pattern in enumerate(compiled))
    for text in texts:
        candidates = prefilter.candidates(text)
        try:
            every = [str(i) for i, p in enumerate(compiled) if p.search(text, timeout=1) is not None]
        except PatternTimeout:
            continue  # a random pattern that backtracks for ever (``{e<=1}`` nested in ``+``) answers nothing
        assert [c for c in candidates if c in every] == every, (text, candidates, every)
        assert candidates == sorted(set(candidates), key=int)
