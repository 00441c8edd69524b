"""``errknow-ls check``: ruff's spellings (``--output-format`` and its formats, ``--diff``,
``--show-fixes``, ``--statistics``, ``--exit-non-zero-on-fix``, ``--stdin-filename``, ``--watch``)
and ``errknow-ls rule``; each format read by its consumer's parser or against its documented shape."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import jsonschema
import junitparser
import pytest

from errknow_ls.analysis import RULES
from errknow_ls.analysis.rules import documentation
from errknow_ls.cli import EXIT_ERROR, EXIT_FOUND, EXIT_OK, main
from errknow_ls.runner.options import OutputFormat
from tests.runner.test_check_cli import CLEAN, DOUBLE, GRAD_FIXED, GRAD_THEN_BACKWARD, Run, pyproject, write

WARMUP = (
    "import torch\nfrom torch import nn\n\nbackbone = nn.Linear(6, 12)\nprobe = nn.Linear(12, 2)\n"
    "inputs = torch.randn(32, 6)\nfeatures = backbone(inputs)\n"
    "for epoch in range(5):\n"
    "    loss = probe(features).sum()\n"
    "    loss.backward()  # EK002, its fix (compute `features` in the loop) is safe\n"
)
WARMUP_LINE = 10


def findings_json(run: Run, *args: str) -> list[dict[str, Any]]:
    code, out, _ = run("--output-format", "json", "--no-cache", *args)
    assert code in (EXIT_OK, EXIT_FOUND)
    items: list[dict[str, Any]] = json.loads(out)
    return items


# --- the names -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["--output-format", "--format"])
def test_output_format_and_its_alias_format(run: Run, tmp_path: Path, name: str) -> None:
    write(tmp_path / "train.py", WARMUP)
    concise = run("--no-cache", name, "concise")
    assert concise == run("--no-cache", name, "text") == run("--no-cache")
    assert concise[1].startswith(f"train.py:{WARMUP_LINE}:5: EK002 [*] ")


def test_an_unknown_format_is_refused_naming_the_choices(run: Run) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run("--output-format", "xml")
    assert exit_info.value.code == EXIT_ERROR


# --- full ------------------------------------------------------------------------------------


def test_full_shows_the_lines_a_caret_the_related_places_and_the_fix_as_a_diff(
    run: Run, tmp_path: Path
) -> None:
    write(tmp_path / "train.py", WARMUP)
    code, out, _ = run("--no-cache", "--output-format", "full")
    assert code == EXIT_FOUND
    lines = out.splitlines()
    assert lines[0].startswith(f"train.py:{WARMUP_LINE}:5: EK002 [*] `loss` reaches a graph")
    offending = lines.index(
        f"{WARMUP_LINE} |     loss.backward()  # EK002, its fix (compute `features` in the loop) is safe"
    )
    assert lines[offending + 1] == "   |     " + "^" * len("loss.backward()") + " EK002"
    assert lines[offending - 1] == " 9 |     loss = probe(features).sum()"
    assert "  = note: 7:12: built here, once, outside the loop" in lines
    assert "  = help: Compute `features` inside the loop, on every iteration (safe fix)" in lines
    assert "    -features = backbone(inputs)" in lines
    assert "    +    features = backbone(inputs)" in lines
    assert lines[-2:] == ["Found 1 error.", "[*] 1 fixable with the --fix option."]


# --- json-lines ------------------------------------------------------------------------------


def test_json_lines_holds_the_json_items_one_per_line(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", WARMUP)
    write(tmp_path / "b.py", DOUBLE)
    items = findings_json(run)
    _, out, _ = run("--no-cache", "--output-format", "json-lines")
    assert [json.loads(line) for line in out.splitlines()] == items
    assert [item["filename"] for item in items] == ["a.py", "b.py"]


# --- github ----------------------------------------------------------------------------------

WORKFLOW_COMMAND = re.compile(
    r"^::(?P<command>error|warning|notice)(?: (?P<properties>[^:]*))?::(?P<message>.*)$"
)


def unescape(text: str, *, is_property: bool) -> str:
    """As the Actions runner reads a command (its ActionCommand unescaping)."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if is_property else [])
    for escaped, plain in [*pairs, ("%25", "%")]:
        text = text.replace(escaped, plain)
    return text


def parse_annotation(line: str) -> tuple[str, dict[str, str], str]:
    match = WORKFLOW_COMMAND.match(line)
    assert match is not None, line
    properties = {}
    for pair in (match["properties"] or "").split(","):
        key, _, value = pair.partition("=")
        properties[key] = unescape(value, is_property=True)
    return match["command"], properties, unescape(match["message"], is_property=False)


def test_github_annotations_parse_as_the_runner_reads_them(run: Run, tmp_path: Path) -> None:
    # A name with every character that must be escaped in a property: the runner would split there.
    write(tmp_path / "odd, name: 100%.py", WARMUP)
    write(tmp_path / "b.py", DOUBLE)
    items = findings_json(run)
    code, out, _ = run("--no-cache", "--output-format", "github")
    assert code == EXIT_FOUND
    annotations = [parse_annotation(line) for line in out.splitlines()]
    assert len(annotations) == len(items) == 2
    for (command, properties, message), item in zip(annotations, items, strict=True):
        assert command == "error"
        assert properties == {
            "title": f"errknow-ls ({item['code']})",
            "file": item["filename"],
            "line": str(item["location"]["row"]),
            "col": str(item["location"]["column"]),
            "endLine": str(item["end_location"]["row"]),
            "endColumn": str(item["end_location"]["column"]),
        }
        where = f"{item['filename']}:{item['location']['row']}:{item['location']['column']}"
        assert message == f"{where}: {item['code']} {item['message']}"


# --- gitlab ----------------------------------------------------------------------------------

GITLAB_CODE_QUALITY = {
    # GitLab's documented Code Quality report (docs: ci/testing/code_quality, "Code Quality report
    # format"): a list of Code Climate issues, of which GitLab reads these fields. GitLab publishes
    # the format as a table, not a schema file; this is that table.
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "type": {"const": "issue"},
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "categories": {"type": "array", "items": {"type": "string"}},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "not": {"pattern": "^/"}},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {
                            "begin": {"type": "integer", "minimum": 1},
                            "end": {"type": "integer"},
                        },
                    },
                },
            },
        },
    },
}


def test_gitlab_report_matches_the_code_quality_format(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "a.py", WARMUP)
    write(tmp_path / "b.py", DOUBLE + DOUBLE.split("\n", 5)[-1])  # the double backward twice
    code, out, _ = run("--no-cache", "--output-format", "gitlab")
    assert code == EXIT_FOUND
    issues = json.loads(out)
    jsonschema.validate(issues, GITLAB_CODE_QUALITY)
    items = findings_json(run)
    assert [(i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [
        (item["filename"].replace(os.sep, "/"), item["location"]["row"]) for item in items
    ]
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)


def test_gitlab_fingerprints_stay_when_the_finding_moves(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", WARMUP)
    before = [issue["fingerprint"] for issue in json.loads(run("--no-cache", "--output-format", "gitlab")[1])]
    write(tmp_path / "a.py", "# a comment\n\n" + WARMUP)
    after = json.loads(run("--no-cache", "--output-format", "gitlab")[1])
    assert [issue["fingerprint"] for issue in after] == before
    assert after[0]["location"]["lines"]["begin"] == WARMUP_LINE + 2


# --- junit -----------------------------------------------------------------------------------


def test_junit_parses_with_a_suite_per_file_and_a_failure_per_finding(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", WARMUP)
    write(tmp_path / "b.py", DOUBLE)
    write(tmp_path / "c.py", CLEAN)
    items = findings_json(run)
    _, out, _ = run("--no-cache", "--output-format", "junit")
    (tmp_path / "report.xml").write_text(out, encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "report.xml"))
    suites = list(xml)
    assert [suite.name for suite in suites] == ["a.py", "b.py"]
    cases = [case for suite in suites for case in suite]
    assert len(cases) == len(items)
    for case, item in zip(cases, items, strict=True):
        (failure,) = case.result
        assert isinstance(failure, junitparser.Failure)
        assert failure.message == item["message"]
        assert failure.type == item["code"]
        assert case.classname == item["filename"]
    assert sum(suite.failures for suite in suites) == len(items)


def test_junit_of_a_clean_run_has_one_passing_case(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "c.py", CLEAN)
    code, out, _ = run("--no-cache", "--output-format", "junit")
    assert code == EXIT_OK
    (tmp_path / "report.xml").write_text(out, encoding="utf-8")
    (suite,) = list(junitparser.JUnitXml.fromfile(str(tmp_path / "report.xml")))
    (case,) = list(suite)
    assert case.is_passed


# --- --diff ----------------------------------------------------------------------------------


def fixable_tree(root: Path) -> dict[str, bytes]:
    write(root / "train.py", WARMUP)
    write(root / "pkg" / "crlf.py", WARMUP, newline="\r\n")
    (root / "pkg" / "no_newline.py").write_text(GRAD_THEN_BACKWARD.rstrip("\n"), encoding="utf-8")
    write(root / "clean.py", CLEAN)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def test_diff_changes_nothing_and_patch_gives_what_fix_writes(run: Run, tmp_path: Path) -> None:
    if shutil.which("patch") is None:
        pytest.skip("needs the patch program")
    before = fixable_tree(tmp_path)
    code, diff, err = run("--no-cache", "--diff")
    assert code == EXIT_FOUND
    assert err.strip().endswith("Would fix 3 errors.")
    assert {str(p.relative_to(tmp_path)): p.read_bytes() for p in sorted(tmp_path.rglob("*.py"))} == before
    assert "--- a/pkg/no_newline.py\n+++ b/pkg/no_newline.py\n" in diff
    patched = tmp_path.parent / "patched"
    shutil.copytree(tmp_path, patched)
    subprocess.run(["patch", "-p1", "--quiet", "--binary"], input=diff.encode(), cwd=patched, check=True)
    assert run("--no-cache", "--fix")[0] == EXIT_OK
    for name in before:
        assert (patched / name).read_bytes() == (tmp_path / name).read_bytes(), name
    assert (tmp_path / "pkg" / "no_newline.py").read_text(encoding="utf-8") == GRAD_FIXED.rstrip("\n")
    assert b"\r\n" in (tmp_path / "pkg" / "crlf.py").read_bytes()


def test_diff_with_nothing_to_fix_exits_0(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "clean.py", CLEAN)
    write(tmp_path / "double.py", DOUBLE)  # its only fix is unsafe
    assert run("--no-cache", "--diff") == (EXIT_OK, "", "No errors would be fixed.\n")


# --- --show-fixes, --statistics, --exit-non-zero-on-fix ----------------------------------------


def test_show_fixes_lists_what_fix_fixed(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", WARMUP)
    write(tmp_path / "b.py", GRAD_THEN_BACKWARD)
    code, out, _ = run("--no-cache", "--fix", "--show-fixes")
    assert code == EXIT_OK
    assert out.endswith(
        "\nFixed 2 errors:\n"
        "  a.py:\n    1 \N{MULTIPLICATION SIGN} EK002 (pre-loop-graph-backward)\n"
        "  b.py:\n    1 \N{MULTIPLICATION SIGN} EK001 (double-backward)\n"
    )


def test_statistics_counts_each_rule_with_whether_fix_fixes_it(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", WARMUP)
    write(tmp_path / "b.py", DOUBLE)
    write(tmp_path / "c.py", DOUBLE)
    code, out, _ = run("--no-cache", "--statistics")
    assert code == EXIT_FOUND
    assert out == "2\tEK001\t[ ] double-backward\n1\tEK002\t[*] pre-loop-graph-backward\n"
    _, as_json, _ = run("--no-cache", "--statistics", "--output-format", "json")
    assert json.loads(as_json) == [
        {"code": "EK001", "name": "double-backward", "count": 2, "fixable": 0},
        {"code": "EK002", "name": "pre-loop-graph-backward", "count": 1, "fixable": 1},
    ]


def test_exit_non_zero_on_fix(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "a.py", WARMUP)
    assert run("--no-cache", "--fix", "--exit-non-zero-on-fix")[0] == EXIT_FOUND
    assert run("--no-cache", "--fix", "--exit-non-zero-on-fix")[0] == EXIT_OK  # nothing left to fix
    write(tmp_path / "a.py", WARMUP)
    assert run("--no-cache", "--fix")[0] == EXIT_OK


# --- standard input ----------------------------------------------------------------------------


def with_stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


def test_stdin_is_checked_under_its_given_name(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    with_stdin(monkeypatch, WARMUP)
    code, out, _ = run("--no-cache", "--stdin-filename", "nets/train.py", "-")
    assert code == EXIT_FOUND
    assert out.startswith(f"nets/train.py:{WARMUP_LINE}:5: EK002 ")
    with_stdin(monkeypatch, WARMUP)
    code, out, _ = run("--no-cache", "-")
    assert out.startswith(f"-:{WARMUP_LINE}:5: EK002 ")


def test_stdin_with_fix_prints_the_fixed_source(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "train.py", WARMUP)
    with_stdin(monkeypatch, GRAD_THEN_BACKWARD)
    code, out, err = run("--no-cache", "--fix", "--stdin-filename", "train.py")
    assert (code, out) == (EXIT_OK, GRAD_FIXED)
    assert "Found 1 error (1 fixed, 0 remaining)." in err
    assert (tmp_path / "train.py").read_text(encoding="utf-8") == WARMUP  # the file of that name is untouched
    with_stdin(monkeypatch, GRAD_THEN_BACKWARD)
    code, out, _ = run("--no-cache", "--diff", "--stdin-filename", "train.py")
    assert code == EXIT_FOUND
    assert out.startswith("--- a/train.py\n+++ b/train.py\n")


def test_stdin_named_as_an_excluded_file_with_force_exclude(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "pyproject.toml", '[tool.errknow]\nextend-exclude = ["legacy"]\n')
    with_stdin(monkeypatch, GRAD_THEN_BACKWARD)
    assert run("--no-cache", "--stdin-filename", "legacy/train.py")[0] == EXIT_FOUND
    with_stdin(monkeypatch, GRAD_THEN_BACKWARD)
    code, out, _ = run("--no-cache", "--force-exclude", "--stdin-filename", "legacy/train.py")
    assert (code, out) == (EXIT_OK, "All checks passed!\n")
    with_stdin(monkeypatch, GRAD_THEN_BACKWARD)
    code, out, _ = run("--no-cache", "--force-exclude", "--fix", "--stdin-filename", "legacy/train.py")
    assert (code, out) == (EXIT_OK, GRAD_THEN_BACKWARD)  # given back unchanged, as ruff does


# --- rule ------------------------------------------------------------------------------------


def rule_command(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["rule", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_rule_prints_the_documentation_hover_shows(capsys: pytest.CaptureFixture[str], rule: Any) -> None:
    for selector in (rule.code, rule.name):
        code, out, _ = rule_command(capsys, selector)
        assert code == EXIT_OK
        assert out == f"# {rule.name} ({rule.code})\n\n{documentation(rule.code)}\n"
    assert "### What it does" in out


def test_rule_all_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = rule_command(capsys, "--all")
    assert code == EXIT_OK
    assert [line for line in out.splitlines() if line.startswith("# ")] == [
        f"# {rule.name} ({rule.code})" for rule in RULES
    ]
    _, out, _ = rule_command(capsys, "--all", "--output-format", "json")
    assert [item["explanation"] for item in json.loads(out)] == [documentation(rule.code) for rule in RULES]


def test_rule_unknown_or_missing_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert rule_command(capsys, "EK999") == (EXIT_ERROR, "", "error: no rule matches 'EK999'\n")
    assert rule_command(capsys)[0] == EXIT_ERROR


# --- --watch ---------------------------------------------------------------------------------


def test_watch_checks_again_when_a_file_changes(tmp_path: Path) -> None:
    write(tmp_path / "train.py", CLEAN)
    command = [sys.executable, "-m", "errknow_ls", "check", "--no-cache", "--watch", "."]
    with subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, text=True, encoding="utf-8"
    ) as process:
        assert process.stdout is not None
        # Not a timing: only so that a watcher that never reports ends the reads (at EOF), not the suite.
        guard = threading.Timer(120, process.kill)
        guard.start()
        try:
            assert process.stdout.readline() == "All checks passed!\n"
            assert process.stdout.readline() == "Watching for file changes.\n"
            write(tmp_path / "train.py", WARMUP)
            assert process.stdout.readline() == "\n"
            assert process.stdout.readline() == "File change detected (train.py): checking again.\n"
            assert process.stdout.readline().startswith(f"train.py:{WARMUP_LINE}:5: EK002 ")
        finally:
            guard.cancel()
            process.terminate()


# --- [tool.errknow] keys that mirror the flags ---------------------------------------------------


def test_output_format_in_pyproject_and_the_flag_over_it(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'output-format = "json-lines"')
    write(tmp_path / "a.py", WARMUP)
    _, out, _ = run("--no-cache")
    assert json.loads(out)["code"] == "EK002"
    assert run("--no-cache", "--output-format", "concise")[1].startswith("a.py:")


def test_a_bad_output_format_in_pyproject_is_an_error_naming_the_key(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'output-format = "xml"')
    write(tmp_path / "a.py", WARMUP)
    code, out, err = run("--no-cache")
    assert (code, out) == (EXIT_ERROR, "")
    assert err.endswith(
        "error: [tool.errknow] output-format: 'xml' is not one of " + ", ".join(OutputFormat) + "\n"
    )
    pyproject(tmp_path, "output-format = 3")
    assert "[tool.errknow] output-format: expected a string" in run("--no-cache")[2]


def test_extend_select_adds_to_select(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'select = ["EK001"]\nextend-select = ["pre-loop-graph-backward"]')
    write(tmp_path / "a.py", WARMUP)
    write(tmp_path / "b.py", DOUBLE)
    assert [item["code"] for item in findings_json(run)] == ["EK002", "EK001"]
    assert [item["code"] for item in findings_json(run, "--select", "EK001")] == ["EK002", "EK001"]
    assert [item["code"] for item in findings_json(run, "--select", "EK001", "--extend-select", "EK003")] == [
        "EK001"
    ]


def test_per_file_ignores_by_glob_and_by_name(run: Run, tmp_path: Path) -> None:
    pyproject(
        tmp_path,
        '[tool.errknow.per-file-ignores]\n"legacy/*.py" = ["EK002"]\n"scratch.py" = ["double-backward"]',
    )
    write(tmp_path / "legacy" / "a.py", WARMUP)
    write(tmp_path / "legacy" / "b.py", DOUBLE)
    write(tmp_path / "pkg" / "scratch.py", DOUBLE)
    write(tmp_path / "train.py", WARMUP)
    found = [(item["filename"], item["code"]) for item in findings_json(run)]
    assert found == [(str(Path("legacy/b.py")), "EK001"), ("train.py", "EK002")]
    assert findings_json(run) == findings_json(run)  # and again from the cache, the same
    assert run("--no-cache", "--fix")[0] == EXIT_FOUND
    assert (tmp_path / "legacy" / "a.py").read_text(
        encoding="utf-8"
    ) == WARMUP  # an ignored finding is not fixed


def test_per_file_ignores_mistakes_name_the_key(run: Run, tmp_path: Path) -> None:
    pyproject(tmp_path, 'per-file-ignores = ["EK001"]')
    write(tmp_path / "a.py", CLEAN)
    assert "[tool.errknow] per-file-ignores: expected a table of glob = list of codes; ignored" in run()[2]
    pyproject(tmp_path, '[tool.errknow.per-file-ignores]\n"a.py" = ["NOPE"]')
    assert "warning: [tool.errknow] per-file-ignores: 'a.py': no rule matches 'NOPE'; ignored" in run()[2]
