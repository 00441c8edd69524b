"""The record model against the seed record it was written from and the records we ship."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errknow_ls.kb import Record
from errknow_ls.kb.loader import record_files
from errknow_ls.kb.model import applies, measured
from tests.support import KB_FIXTURES, RECORDS, REPO, SHIPPED_FILE, read_json

SEED = KB_FIXTURES / "seed_000_b5a85d4833bd05f3.json"
SHARED_SEED = REPO.parent / "shared" / "seeds" / "000_b5a85d4833bd05f3.txt"


def test_seed_fixture_is_a_verbatim_copy() -> None:
    # The shared seeds sit beside the repository only on the machine that wrote it, not in CI.
    if not SHARED_SEED.is_file():
        pytest.skip(f"{SHARED_SEED} is not here")
    assert SEED.read_bytes() == SHARED_SEED.read_bytes()


def test_seed_round_trips_unchanged() -> None:
    data = read_json(SEED)
    dumped = Record.model_validate(data).dump()
    assert dumped == data


def test_seed_round_trip_keeps_key_order() -> None:
    data = read_json(SEED)
    dumped = Record.model_validate(data).dump()
    # dict equality ignores order; the serialised text does not, at every level.
    assert json.dumps(dumped, ensure_ascii=False) == json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize("path", list(record_files(RECORDS)), ids=lambda p: p.relative_to(RECORDS).as_posix())
def test_shipped_records_round_trip(path: Path) -> None:
    data = read_json(path)
    dumped = Record.model_validate(data).dump()
    assert json.dumps(dumped, ensure_ascii=False) == json.dumps(data, ensure_ascii=False)


@pytest.mark.parametrize(
    ("version", "expected"),
    [("2.13.0", True), ("2.13.0+cpu", True), ("1.10", True), ("1.9.1", None), ("3.0", None)],
)
def test_affects_by_release_line(version: str, expected: bool | None) -> None:
    record = Record.model_validate(read_json(SHIPPED_FILE))
    assert record.affects(version) is expected


def test_affects_is_unknown_without_versions() -> None:
    data = read_json(SHIPPED_FILE) | {"versions": []}
    assert Record.model_validate(data).affects("2.13.0") is None


def test_records_are_frozen() -> None:
    record = Record.model_validate(read_json(SHIPPED_FILE))
    with pytest.raises(ValueError, match="frozen"):
        record.confidence = 0.1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (
            [
                "measured: 1 of 1 variants in records/repro/x.py run clean (torch 2.13.0);"
                " the fix applies to 1 of 5 variants"
            ],
            (1, 5),
        ),
        (["measured: 3 of 4 variants in records/repro/x.py run clean (torch 2.13.0)"], None),
        (["see it; the fix applies to 1 of 5 variants"], None),
    ],
)
def test_applies_reads_which_variants_a_measured_fix_was_meant_for(
    sources: list[str], expected: tuple[int, int] | None
) -> None:
    assert applies(sources) == expected


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (["measured: 3 of 4 variants in records/repro/x.py run clean (torch 2.13.0)"], (3, 4)),
        (["https://example.org/a", "measured: 0 of 2 variants in records/repro/y.py run clean"], (0, 2)),
        (["https://example.org/a"], None),
        (["measured: 1 of 0 variants"], None),
        ([], None),
    ],
)
def test_measured_reads_the_projects_measurement_from_sources(
    sources: list[str], expected: tuple[int, int] | None
) -> None:
    assert measured(sources) == expected
