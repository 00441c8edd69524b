"""The ``errknow-ls`` command line: exit codes, output formats, and the schema it regenerates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from errknow_ls import __version__
from errknow_ls.cli import EXIT_ERROR, EXIT_FOUND, EXIT_OK, main
from tests.support import (
    GOOD_FILE,
    GOOD_ID,
    KB_FIXTURES,
    RECORDS,
    SHIPPED_FILE,
    SHIPPED_FORMER_ID,
    SHIPPED_ID,
    SHIPPED_IDS,
    copy_into,
    read_json,
)


def test_records_lint_is_clean_on_the_shipped_records(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", "lint"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert (out, err) == ("", "all records clean\n")


def test_records_lint_prints_one_line_per_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = KB_FIXTURES / "broken"
    directory = copy_into(
        tmp_path, GOOD_FILE, broken / "missing-field.json", broken / "regex-misses-alias.json"
    )
    assert main(["records", "lint", str(directory)]) == EXIT_FOUND
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{directory / 'missing-field.json'}: root_cause: Field required",
        f"{directory / 'regex-misses-alias.json'}: regex: does not match aliases.0",
    ]
    assert err == "2 problems\n"


def test_records_list_names_every_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", "list", "--records", str(copy_into(tmp_path, GOOD_FILE))]) == EXIT_OK
    ids = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert ids == sorted([*SHIPPED_IDS, GOOD_ID])


def test_records_show_unknown_id_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", "show", "pytorch/no-such-record"]) == EXIT_ERROR
    assert capsys.readouterr().err == "error: no record 'pytorch/no-such-record'\n"


def test_records_show_json_is_the_record_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", "show", SHIPPED_ID, "--format", "json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out) == read_json(SHIPPED_FILE)


def test_records_show_text_gives_cause_and_fixes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", "show", SHIPPED_ID]) == EXIT_OK
    out = capsys.readouterr().out
    record = read_json(SHIPPED_FILE)
    assert out.startswith(f"{SHIPPED_ID}  [verified, confidence 0.85]\n")
    assert f"Why: {record['root_cause']}" in out
    assert out.count("\nDon't: ") == len(record["dead_ends"])
    assert out.count("\nDo: ") == len(record["workarounds"])


def test_records_show_reads_later_dirs_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = read_json(SHIPPED_FILE) | {"root_cause": "overridden"}
    override = tmp_path / "override.json"
    override.write_text(json.dumps(data), encoding="utf-8")
    assert main(["records", "show", SHIPPED_ID, "--records", str(tmp_path), "--format", "json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["root_cause"] == "overridden"


def test_a_broken_user_record_is_a_warning_not_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = copy_into(tmp_path, KB_FIXTURES / "broken" / "not-json.json")
    assert main(["records", "list", "--records", str(directory)]) == EXIT_OK
    out, err = capsys.readouterr()
    assert out.startswith(SHIPPED_IDS[0])
    assert err.startswith(f"warning: {directory / 'not-json.json'}: (file): not JSON: ")


def test_records_schema_prints_the_committed_schema(capsys: pytest.CaptureFixture[str]) -> None:
    # The committed file must be exactly what `errknow-ls records schema > records/schema.json` writes.
    assert main(["records", "schema"]) == EXIT_OK
    assert capsys.readouterr().out == (RECORDS / "schema.json").read_text(encoding="utf-8")


def test_python_m_errknow_ls_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "errknow_ls", "--version"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, f"errknow-ls {__version__}\n")


def test_an_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["records", "frobnicate"])
    assert exited.value.code == EXIT_ERROR
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


def test_records_show_finds_a_record_by_its_former_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", "show", SHIPPED_FORMER_ID, "--format", "json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["id"] == SHIPPED_ID
