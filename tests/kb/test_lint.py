"""``records lint`` on each kind of broken record, always beside a good one that must still load.

Each case copies ``fixtures/good.json`` and one broken file into a fresh directory, then checks the
exact ``path: field: problem`` lines of lint, and what the loader made of the same directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from errknow_ls.kb import KnowledgeBase, builtin_records_dir
from errknow_ls.kb.lint import lint
from errknow_ls.kb.loader import MAX_RECORD_BYTES
from tests.support import GOOD_FILE, GOOD_ID, KB_FIXTURES, copy_into, read_json, write_json

BROKEN = KB_FIXTURES / "broken"
NO_SOURCE = "no source (cite one, measure it, or leave it out)"

# (file under fixtures/broken, its lint lines as "field: problem", whether the loader skips it)
CASES = [
    (
        "not-json.json",
        ["(file): not JSON: Expecting property name enclosed in double quotes: line 4 column 1 (char 79)"],
        True,
    ),
    (
        "wrong-type.json",
        ["confidence: Input should be a valid number, unable to parse string as a number"],
        True,
    ),
    ("rate-out-of-range.json", ["dead_ends.0.fail_rate: Input should be less than or equal to 1"], True),
    (
        "bad-date.json",
        ["first_seen: Input should be a valid date or datetime, day value is outside expected range"],
        True,
    ),
    ("missing-field.json", ["root_cause: Field required"], True),
    ("unknown-field.json", ["severity: Extra inputs are not permitted"], True),
    ("regex-does-not-compile.json", ["regex: does not compile: missing ) at position 20"], True),
    ("regex-misses-signature.json", ["regex: does not match signature"], False),
    ("regex-misses-alias.json", ["regex: does not match aliases.0"], False),
    ("regex-catastrophic.json", ["regex: timed out on signature"], False),
    ("zh-field-in-english.json", ["signature_zh: not Chinese text"], False),
    ("root-cause-zh-in-english.json", ["root_cause_zh: not Chinese text"], False),
    ("workarounds-zh-in-english.json", ["workarounds_zh.0: not Chinese text"], False),
    ("empty-dead-end-action.json", ["dead_ends.0.action: empty"], False),
    ("empty-dead-end-why-fails.json", ["dead_ends.0.why_fails: empty"], False),
    ("empty-workaround-action.json", ["workarounds.0.action: empty"], False),
    ("workarounds-zh-count.json", ["workarounds_zh: has 1, workarounds has 2"], False),
    ("unknown-graph-target.json", ["transition_graph.leads_to.0: unknown record 'test/nowhere'"], False),
    (
        "confused-one-way.json",
        [
            "transition_graph.frequently_confused_with.0: 'test/good' does not list "
            "'test/confused-one-way' in frequently_confused_with"
        ],
        False,
    ),
    (
        "leads-to-one-way.json",
        ["transition_graph.leads_to.0: 'test/good' does not list 'test/leads-to-one-way' in preceded_by"],
        False,
    ),
    (
        "preceded-by-one-way.json",
        ["transition_graph.preceded_by.0: 'test/good' does not list 'test/preceded-by-one-way' in leads_to"],
        False,
    ),
    ("regex-claims-another.json", ["regex: also matches test/good's signature"], False),
    ("rate-without-source.json", [f"workarounds.0.success_rate: {NO_SOURCE}"], False),
    ("alias-without-citation.json", ["aliases.0: no citation backs this wording"], False),
    ("citation-names-nothing.json", ["citations.1.supports: 'aliases.3' names no field"], False),
    (
        "cited-without-sources.json",
        [
            "signature: a cited record cites no report that quotes it",
            "workarounds.0.sources: a cited record names no source for it",
        ],
        False,
    ),
]


def _lines(directory: Path, name: str, problems: list[str]) -> list[str]:
    return [f"{directory / name}: {problem}" for problem in problems]


@pytest.mark.parametrize(("name", "problems", "skipped"), CASES, ids=[case[0] for case in CASES])
def test_lint_names_file_field_and_problem(
    tmp_path: Path, name: str, problems: list[str], skipped: bool
) -> None:
    directory = copy_into(tmp_path / "records", GOOD_FILE, BROKEN / name)
    assert [str(p) for p in lint([directory])] == _lines(directory, name, problems)

    kb = KnowledgeBase.load([directory], builtin=False)
    assert kb.path_of(GOOD_ID) == str(directory / "good.json")
    # The loader takes what validates and compiles; the rest of lint is for authors, not for loading.
    assert [str(p) for p in kb.problems] == (_lines(directory, name, problems) if skipped else [])


def test_lint_finds_duplicate_ids_across_files(tmp_path: Path) -> None:
    directory = copy_into(tmp_path / "records", GOOD_FILE, BROKEN / "same-id-as-good.json")
    assert [str(p) for p in lint([directory])] == [
        f"{directory / 'same-id-as-good.json'}: id: 'test/good' also in {directory / 'good.json'}"
    ]
    assert GOOD_ID in KnowledgeBase.load([directory], builtin=False)


def test_lint_finds_duplicate_ids_across_directories(tmp_path: Path) -> None:
    first = copy_into(tmp_path / "first", GOOD_FILE)
    second = copy_into(tmp_path / "second", GOOD_FILE)
    assert [str(p) for p in lint([first, second])] == [
        f"{second / 'good.json'}: id: 'test/good' also in {first / 'good.json'}"
    ]


def test_lint_skips_a_file_over_the_size_limit(tmp_path: Path) -> None:
    directory = copy_into(tmp_path / "records", GOOD_FILE)
    data = read_json(GOOD_FILE) | {"id": "test/huge", "root_cause": "x" * MAX_RECORD_BYTES}
    huge = write_json(directory / "huge.json", data)
    size = huge.stat().st_size
    expected = [f"{huge}: (file): {size} bytes, over the {MAX_RECORD_BYTES} limit"]
    assert [str(p) for p in lint([directory])] == expected

    kb = KnowledgeBase.load([directory], builtin=False)
    assert (GOOD_ID in kb, "test/huge" in kb) == (True, False)
    assert [str(p) for p in kb.problems] == expected


def test_lint_survives_deeply_nested_json(tmp_path: Path) -> None:
    directory = copy_into(tmp_path / "records", GOOD_FILE)
    deep = directory / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    expected = [f"{deep}: (file): nested too deeply"]
    assert [str(p) for p in lint([directory])] == expected

    kb = KnowledgeBase.load([directory], builtin=False)
    assert kb.records == [kb.get(GOOD_ID)]
    assert [str(p) for p in kb.problems] == expected


def test_lint_reports_a_missing_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert [str(p) for p in lint([missing])] == [f"{missing}: (dir): not a directory"]


def test_transition_targets_may_name_known_records(tmp_path: Path) -> None:
    # A known record from elsewhere (x/y) need not name this one back: it is not this lint's to edit.
    data = read_json(BROKEN / "unknown-graph-target.json")
    directory = tmp_path / "records"
    write_json(
        directory / "good.json", read_json(GOOD_FILE) | {"transition_graph": {"preceded_by": [data["id"]]}}
    )
    write_json(directory / "linked.json", data | {"transition_graph": {"leads_to": ["test/good", "x/y"]}})
    assert [str(p) for p in lint([directory], known_ids=["x/y"])] == []


def test_a_link_named_from_both_ends_lints_clean(tmp_path: Path) -> None:
    data = read_json(BROKEN / "confused-one-way.json")
    directory = tmp_path / "records"
    graph = {"frequently_confused_with": [data["id"]]}
    write_json(directory / "good.json", read_json(GOOD_FILE) | {"transition_graph": graph})
    write_json(directory / "confused.json", data)
    assert [str(p) for p in lint([directory])] == []


def test_seed_record_lints_with_its_known_defects(tmp_path: Path) -> None:
    # The seed as it was handed over: untranslated workarounds and dead ends, dead ends with no action.
    seed = KB_FIXTURES / "seed_000_b5a85d4833bd05f3.json"
    directory = copy_into(tmp_path / "records", seed)
    where = directory / seed.name
    assert [str(p) for p in lint([directory])] == [
        f"{where}: workarounds_zh.0: not Chinese text",
        f"{where}: workarounds_zh.1: not Chinese text",
        f"{where}: dead_ends_zh: has 0, dead_ends has 2",
        f"{where}: dead_ends.0.action: empty",
        f"{where}: dead_ends.1.action: empty",
        # Its rates were guesses: no source says where any of them came from.
        f"{where}: dead_ends.0.fail_rate: {NO_SOURCE}",
        f"{where}: dead_ends.1.fail_rate: {NO_SOURCE}",
        f"{where}: workarounds.0.success_rate: {NO_SOURCE}",
        f"{where}: workarounds.1.success_rate: {NO_SOURCE}",
        f"{where}: fix_success_rate: no citation (cite one, measure it, or leave it out)",
    ]


def test_shipped_records_lint_clean() -> None:
    assert lint([builtin_records_dir()]) == []


def test_every_shipped_record_has_an_edge() -> None:
    # A record without one leaves the editor nothing to say about what comes before, after, or instead.
    kb = KnowledgeBase.load()
    alone = [record.id for record in kb.records if not any(record.transition_graph.model_dump().values())]
    assert kb.records and alone == []


def test_a_former_id_names_one_record_only(tmp_path: Path) -> None:
    directory = copy_into(tmp_path / "records", GOOD_FILE)
    other = read_json(GOOD_FILE) | {"id": "test/other", "former_ids": [GOOD_ID, "test/gone"]}
    third = read_json(GOOD_FILE) | {"id": "test/third", "former_ids": ["test/gone"]}
    write_json(directory / "other.json", other)
    write_json(directory / "third.json", third)
    messages = [f"{p.field}: {p.message}" for p in lint([directory]) if p.field.startswith("former_ids")]
    assert messages == [
        f"former_ids.0: {GOOD_ID!r} is the id of {directory / GOOD_FILE.name}",
        f"former_ids.0: 'test/gone' is also a former id in {directory / 'other.json'}",
    ]
