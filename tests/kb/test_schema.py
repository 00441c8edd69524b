"""``records/schema.json`` is the model's schema, and says what the model says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from errknow_ls.kb.loader import record_files
from errknow_ls.kb.model import json_schema
from tests.support import KB_FIXTURES, RECORDS, SHIPPED_FILE, read_json

SCHEMA_FILE = RECORDS / "schema.json"


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = read_json(SCHEMA_FILE)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def test_committed_schema_is_the_models() -> None:
    # Regenerate with: errknow-ls records schema > records/schema.json
    assert read_json(SCHEMA_FILE) == json_schema()


@pytest.mark.parametrize(
    "path",
    [*record_files(RECORDS), KB_FIXTURES / "seed_000_b5a85d4833bd05f3.json"],
    ids=lambda p: p.name,
)
def test_records_satisfy_the_schema(validator: Any, path: Path) -> None:
    validator.validate(read_json(path))


@pytest.mark.parametrize(
    ("change", "keyword"),
    [
        ({"confidence": 1.5}, "maximum"),
        ({"severity": "high"}, "additionalProperties"),
        ({"verification_tier": "folklore"}, "enum"),
        # An optional date is "a date or null", so a bad one fails the anyOf.
        ({"first_seen": "2023-02-30"}, "anyOf"),
    ],
    ids=["rate-over-1", "unknown-field", "unknown-tier", "impossible-date"],
)
def test_schema_rejects_what_the_model_rejects(validator: Any, change: dict[str, Any], keyword: str) -> None:
    data = read_json(SHIPPED_FILE) | change
    errors = list(validator.iter_errors(data))
    assert [error.validator for error in errors] == [keyword]
