"""Where records come from and which one wins: built-in first, then each directory in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from errknow_ls.kb import KnowledgeBase, builtin_records_dir
from tests.support import (
    GOOD_FILE,
    GOOD_ID,
    RECORDS,
    SHIPPED_FILE,
    SHIPPED_FORMER_ID,
    SHIPPED_ID,
    SHIPPED_IDS,
    copy_into,
    read_json,
    write_json,
)


def _override(directory: Path, label: str) -> Path:
    """A directory whose only record replaces the shipped one, its root cause saying where it is from."""
    data = read_json(SHIPPED_FILE) | {"root_cause": f"from {label}"}
    write_json(directory / "override.json", data)
    return directory


@pytest.fixture
def first(tmp_path: Path) -> Path:
    return _override(tmp_path / "first", "first")


@pytest.fixture
def second(tmp_path: Path) -> Path:
    return _override(tmp_path / "second", "second")


def _root_cause(kb: KnowledgeBase) -> str:
    record = kb.get(SHIPPED_ID)
    assert record is not None
    return record.root_cause


def test_builtin_records_load_from_the_checkout() -> None:
    assert builtin_records_dir() == RECORDS
    kb = KnowledgeBase.load()
    assert kb.path_of(SHIPPED_ID) == str(SHIPPED_FILE)
    assert (kb.problems, kb.sources) == ([], [str(RECORDS)])


def test_a_records_dir_overrides_the_builtin_record(first: Path) -> None:
    kb = KnowledgeBase.load([first])
    assert _root_cause(kb) == "from first"
    assert kb.path_of(SHIPPED_ID) == str(first / "override.json")
    assert len(kb) == len(SHIPPED_IDS)


@pytest.mark.parametrize(("order", "winner"), [((0, 1), "second"), ((1, 0), "first")])
def test_a_later_dir_overrides_an_earlier_one(
    first: Path, second: Path, order: tuple[int, int], winner: str
) -> None:
    dirs = [[first, second][i] for i in order]
    kb = KnowledgeBase.load(dirs)
    assert _root_cause(kb) == f"from {winner}"
    assert kb.sources == [str(RECORDS), *map(str, dirs)]


def test_records_from_every_dir_are_kept(first: Path, tmp_path: Path) -> None:
    extra = copy_into(tmp_path / "extra", GOOD_FILE)
    kb = KnowledgeBase.load([first, extra])
    assert sorted(record.id for record in kb.records) == sorted([*SHIPPED_IDS, GOOD_ID])


def test_without_builtin_only_the_given_dirs_load(first: Path) -> None:
    kb = KnowledgeBase.load([first], builtin=False)
    assert kb.sources == [str(first)]
    assert _root_cause(kb) == "from first"


def test_a_missing_dir_is_a_problem_not_a_failure(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    kb = KnowledgeBase.load([missing])
    assert [str(p) for p in kb.problems] == [f"{missing}: (dir): not a directory"]
    assert SHIPPED_ID in kb


def test_repro_scripts_beside_the_records_are_not_records(tmp_path: Path) -> None:
    # records/ ships in the wheel with records/repro/*.py; only *.json files are records.
    repro = RECORDS / "repro" / "inplace-modified-needed-for-grad.py"
    directory = copy_into(tmp_path / "records", GOOD_FILE)
    copy_into(directory / "repro", repro)
    kb = KnowledgeBase.load([directory], builtin=False)
    assert ([r.id for r in kb.records], kb.problems) == ([GOOD_ID], [])


def test_schema_json_is_not_a_record(tmp_path: Path) -> None:
    directory = copy_into(tmp_path / "records", GOOD_FILE, RECORDS / "schema.json")
    kb = KnowledgeBase.load([directory], builtin=False)
    assert (len(kb), kb.problems) == (1, [])


def test_records_load_from_subdirectories(tmp_path: Path) -> None:
    directory = copy_into(tmp_path / "records" / "test" / "deeper", GOOD_FILE)
    kb = KnowledgeBase.load([tmp_path / "records"], builtin=False)
    assert kb.path_of(GOOD_ID) == str(directory / "good.json")


def test_a_renamed_record_is_found_by_its_former_id() -> None:
    # Caches, settings and links written before the rename name the old id (issue 16).
    kb = KnowledgeBase.load()
    record = kb.get(SHIPPED_FORMER_ID)
    assert record is not None and record.id == SHIPPED_ID
    assert SHIPPED_FORMER_ID in record.former_ids
    assert (SHIPPED_FORMER_ID in kb, kb.resolve(SHIPPED_FORMER_ID), kb.path_of(SHIPPED_FORMER_ID)) == (
        True,
        SHIPPED_ID,
        str(SHIPPED_FILE),
    )
    assert SHIPPED_FORMER_ID not in {r.id for r in kb.records}


def test_a_user_record_under_the_former_id_still_overrides_the_renamed_one(tmp_path: Path) -> None:
    data = read_json(SHIPPED_FILE) | {"id": SHIPPED_FORMER_ID, "former_ids": [], "root_cause": "mine"}
    write_json(tmp_path / "mine" / "old-name.json", data)
    kb = KnowledgeBase.load([tmp_path / "mine"])
    assert len(kb) == len(SHIPPED_IDS)
    assert SHIPPED_ID not in kb
    mine = kb.get(SHIPPED_FORMER_ID)
    assert mine is not None and mine.root_cause == "mine"
    matched = kb.match("Trying to backward through the graph a second time")
    assert [m.record.root_cause for m in matched] == ["mine"]


def test_a_renamed_user_record_replaces_the_one_under_its_old_id(tmp_path: Path) -> None:
    old = copy_into(tmp_path / "old", GOOD_FILE)
    renamed = read_json(GOOD_FILE) | {"id": "test/renamed", "former_ids": [GOOD_ID]}
    write_json(tmp_path / "new" / "renamed.json", renamed)
    kb = KnowledgeBase.load([old, tmp_path / "new"], builtin=False)
    assert [r.id for r in kb.records] == ["test/renamed"]
    assert kb.resolve(GOOD_ID) == "test/renamed"
