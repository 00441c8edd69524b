"""Load records from the built-in set and from user directories; a bad file never stops the rest."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import regex
from pydantic import ValidationError

from errknow_ls.kb.model import Record
from errknow_ls.kb.patterns import CompiledPattern, PatternRejected, compile_pattern

MAX_RECORD_BYTES = 1024 * 1024
"""A record is a page of text; a file larger than this is not one."""

SKIPPED_NAMES = frozenset({"schema.json"})


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a record file, or one field of it, was not taken."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.field}: {self.message}"


@dataclass(frozen=True, slots=True)
class LoadedRecord:
    record: Record
    path: str
    pattern: CompiledPattern


@dataclass(slots=True)
class LoadResult:
    records: dict[str, LoadedRecord] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    """A record's former id -> its id now (``former_ids``)."""

    def resolve(self, record_id: str) -> str | None:
        """The id of the record known as ``record_id``, now or before a rename; None if none is."""
        return record_id if record_id in self.records else self.renamed.get(record_id)

    def add(self, loaded: LoadedRecord) -> None:
        """Take a record; it replaces each earlier record it shares an id with, current or former
        (a user's record written under a built-in record's old id still overrides it)."""
        record = loaded.record
        for record_id in (record.id, *record.former_ids):
            replaced = self.resolve(record_id)
            if replaced is not None and replaced != record.id:
                for former in self.records.pop(replaced).record.former_ids:
                    self.renamed.pop(former, None)
        self.records[record.id] = loaded
        for former in record.former_ids:
            self.renamed[former] = record.id


def builtin_records_dir() -> Path:
    """Where the shipped records are: inside the wheel, or at the repository root in a checkout."""
    packaged = Path(str(resources.files("errknow_ls"))) / "records"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "records"


def record_files(directory: Path) -> Iterator[Path]:
    """Every ``*.json`` record below ``directory``, in a stable order."""
    for path in sorted(directory.rglob("*.json")):
        if path.name not in SKIPPED_NAMES and path.is_file():
            yield path


def _validation_problems(where: str, exc: ValidationError) -> list[Problem]:
    """One problem per failed field, named by its dotted path (``dead_ends.0.fail_rate``)."""
    return [
        Problem(where, ".".join(str(part) for part in err["loc"]) or "(record)", err["msg"])
        for err in exc.errors(include_url=False)
    ]


def _read_json(path: Path) -> tuple[Any, Problem | None]:
    """The file's JSON data, or the problem that kept us from reading it."""
    where = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            return None, Problem(where, "(file)", f"{size} bytes, over the {MAX_RECORD_BYTES} limit")
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, Problem(where, "(file)", f"cannot read: {exc}")
    except json.JSONDecodeError as exc:
        return None, Problem(where, "(file)", f"not JSON: {exc}")
    except RecursionError:
        # Valid JSON, but deep enough to exhaust the decoder's stack: no record looks like that.
        return None, Problem(where, "(file)", "nested too deeply")


def parse_record(path: Path) -> tuple[LoadedRecord | None, list[Problem]]:
    """Read, validate and compile one record file."""
    where = str(path)
    data, problem = _read_json(path)
    if problem is not None:
        return None, [problem]
    try:
        record = Record.model_validate(data)
    except ValidationError as exc:
        return None, _validation_problems(where, exc)
    except RecursionError:
        return None, [Problem(where, "(record)", "nested too deeply")]
    try:
        pattern = compile_pattern(record.regex)
    except (regex.error, RecursionError, OverflowError, MemoryError) as exc:
        return None, [Problem(where, "regex", f"does not compile: {exc}")]
    except PatternRejected as exc:
        return None, [Problem(where, "regex", f"rejected: {exc}")]
    return LoadedRecord(record, where, pattern), []


def load(directories: Iterable[Path], *, builtin: bool = True) -> LoadResult:
    """Load the built-in records, then each directory in order; later ids override earlier ones
    (an id matches a record's id or one of its ``former_ids``)."""
    result = LoadResult()
    dirs = [builtin_records_dir(), *directories] if builtin else list(directories)
    for directory in dirs:
        if not directory.is_dir():
            result.problems.append(Problem(str(directory), "(dir)", "not a directory"))
            continue
        result.sources.append(str(directory))
        for path in record_files(directory):
            loaded, problems = parse_record(path)
            result.problems.extend(problems)
            if loaded is not None:
                result.add(loaded)
    return result
