"""The order records load in from the command line: built-in, ``--records``, the project's
``[tool.errknow]`` ``records``, then its ``.errknow/records/``; a later one wins by id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errknow_ls.cli import EXIT_FOUND, EXIT_OK, main
from tests.support import SHIPPED_FILE, SHIPPED_ID, read_json, write_json

LAYERS = ("command-line", "pyproject", "workspace")
DOUBLE = """\
import torch

x = torch.ones(2, requires_grad=True)
loss = (x * x).sum()
loss.backward()
loss.backward()
"""


def _record(layer: str) -> dict[str, object]:
    record: dict[str, object] = read_json(SHIPPED_FILE)
    return record | {
        "root_cause": f"cause from the {layer} layer",
        "official_doc_url": f"https://example.org/{layer}",
    }


def _project(tmp_path: Path, layers: tuple[str, ...]) -> tuple[Path, list[str]]:
    """A project whose code lives in ``pkg/``, with the shipped record overridden in ``layers``;
    returns the project and the ``--records`` arguments."""
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.errknow]\nrecords = ["kb"]\n', encoding="utf-8")
    (project / ".errknow").mkdir()
    (project / "kb").mkdir()
    args: list[str] = []
    if "command-line" in layers:
        write_json(tmp_path / "cli-records" / "mine.json", _record("command-line"))
        args = ["--records", str(tmp_path / "cli-records")]
    if "pyproject" in layers:
        write_json(project / "kb" / "mine.json", _record("pyproject"))
    if "workspace" in layers:
        write_json(project / ".errknow" / "records" / "mine.json", _record("workspace"))
    return project, args


# Each case: the layers that override the shipped record, and the one that must win.
CASES = [
    (LAYERS, "workspace"),
    (("command-line", "pyproject"), "pyproject"),
    (("command-line", "workspace"), "workspace"),
    (("command-line",), "command-line"),
]


@pytest.mark.parametrize(("layers", "winner"), CASES)
def test_records_show_takes_the_latest_layer(
    layers: tuple[str, ...],
    winner: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project, args = _project(tmp_path, layers)
    monkeypatch.chdir(project / "pkg")  # below the project root: found as ruff finds its config
    assert main(["records", "show", SHIPPED_ID, "--format", "json", *args]) == EXIT_OK
    out, err = capsys.readouterr()
    assert err == ""
    assert json.loads(out)["root_cause"] == f"cause from the {winner} layer"


def test_records_list_counts_an_override_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project, args = _project(tmp_path, LAYERS)
    monkeypatch.chdir(tmp_path)  # outside the project: the built-in records and --records only
    assert main(["records", "list", *args]) == EXIT_OK
    outside = capsys.readouterr().out
    monkeypatch.chdir(project)
    assert main(["records", "list", *args]) == EXIT_OK
    inside = capsys.readouterr().out
    assert inside == outside and inside.count(SHIPPED_ID) == 1


def test_explain_uses_the_workspace_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project, args = _project(tmp_path, LAYERS)
    signature = str(read_json(SHIPPED_FILE)["signature"])
    log = project / "run.log"
    log.write_text(
        f'Traceback (most recent call last):\n  File "train.py", line 6, in <module>\n'
        f"    loss.backward()\n{signature}\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(project)
    assert main(["explain", str(log), *args]) == EXIT_FOUND
    out = capsys.readouterr().out
    assert "cause from the workspace layer" in out
    assert "cause from the command-line layer" not in out
    assert "cause from the pyproject layer" not in out


@pytest.mark.parametrize(("layers", "winner"), CASES)
def test_check_takes_the_latest_layer(
    layers: tuple[str, ...],
    winner: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project, args = _project(tmp_path, layers)
    (project / "pkg" / "train.py").write_text(DOUBLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the project is found from the path checked, not from here
    code = main(["check", "--no-cache", "--format", "sarif", *args, str(project / "pkg")])
    out, err = capsys.readouterr()
    assert (code, err) == (EXIT_FOUND, "")
    rules = json.loads(out)["runs"][0]["tool"]["driver"]["rules"]
    assert {rule["helpUri"] for rule in rules} == {f"https://example.org/{winner}"}


def test_a_pyproject_without_errknow_is_passed_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project, args = _project(tmp_path, ("workspace",))
    (project / "pkg" / "pyproject.toml").write_text("[project]\nname = 'pkg'\n", encoding="utf-8")
    monkeypatch.chdir(project / "pkg")
    assert main(["records", "show", SHIPPED_ID, "--format", "json", *args]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["root_cause"] == "cause from the workspace layer"


def test_the_nearest_errknow_directory_makes_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ruff stops at the nearest configuration: a sub-project with its own ``.errknow/`` does
    not take its parent's ``[tool.errknow]`` records."""
    project, args = _project(tmp_path, ("pyproject",))
    write_json(project / "pkg" / ".errknow" / "records" / "mine.json", _record("sub-project"))
    monkeypatch.chdir(project / "pkg")
    assert main(["records", "show", SHIPPED_ID, "--format", "json", *args]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["root_cause"] == "cause from the sub-project layer"
    (project / "pkg" / ".errknow" / "records" / "mine.json").unlink()
    assert main(["records", "show", SHIPPED_ID, "--format", "json", *args]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["root_cause"] == str(read_json(SHIPPED_FILE)["root_cause"])
