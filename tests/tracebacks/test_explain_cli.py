"""``errknow-ls explain``: the JSON contract our tooling reads, the text a person reads, exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errknow_ls.cli import main
from errknow_ls.kb import KnowledgeBase
from tests.support import INPLACE_ID, REPO, SHAPE_ID, SHIPPED_FILE, SHIPPED_ID, read_json, write_json

from .conftest import Captures

EXAMPLE = REPO / "examples" / "train_run.log"
EXAMPLE_PROGRAM = "/home/user/project/examples/rnn_language_model.py"
KEYS = {"record", "source", "line", "cell", "exception", "message", "frames", "user_frame", "bare"}
# An error no shipped record knows.
UNKNOWN_TRACEBACK = """\
Traceback (most recent call last):
  File "/home/user/project/probe.py", line 7, in <module>
    first, second = torch.ones(3)
ValueError: too many values to unpack (expected 2)
"""


def explain(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["explain", *args])
    out, err = capsys.readouterr()
    return code, out, err


def explain_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]]]:
    code, out, _ = explain(capsys, *args, "--format", "json")
    return code, json.loads(out)


def test_json_contract_on_the_example_log(capsys: pytest.CaptureFixture[str]) -> None:
    code, items = explain_json(capsys, str(EXAMPLE))
    assert code == 1
    (item,) = items
    assert set(item) == KEYS
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    assert lines[item["line"] - 1].startswith("RuntimeError: Trying to backward through the graph")
    assert item["record"] == SHIPPED_ID
    assert (item["source"], item["cell"], item["exception"]) == (str(EXAMPLE), None, "RuntimeError")
    assert item["user_frame"] == {"file": EXAMPLE_PROGRAM, "line": 33}
    assert item["frames"][:2] == [
        {"file": EXAMPLE_PROGRAM, "line": 39, "function": "<module>"},
        {"file": EXAMPLE_PROGRAM, "line": 33, "function": "main"},
    ]
    assert f"RuntimeError: {item['message']}" == read_json(SHIPPED_FILE)["signature"]


def test_unmatched_traceback_is_listed_with_record_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "probe.log"
    log.write_text("loading\n" + UNKNOWN_TRACEBACK, encoding="utf-8")
    code, items = explain_json(capsys, str(log))
    assert code == 0
    assert [(i["record"], i["line"], i["user_frame"]) for i in items] == [
        (None, 5, {"file": "/home/user/project/probe.py", "line": 7})
    ]
    code, out, _ = explain(capsys, str(log))
    assert code == 0
    assert "Errors no record explains:" in out
    assert f"{log}:5: ValueError: too many values to unpack" in out


INPLACE_LINE = (
    "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [36, 32]], which is output 0 of ViewBackward, is at version 2; expected "
    "version 1 instead."
)


def test_a_bare_error_line_in_a_log_is_explained_and_says_it_has_no_frames(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text(f"epoch 1 loss 0.3\n[rank0]: {INPLACE_LINE}\nepoch 2\n", encoding="utf-8")
    code, items = explain_json(capsys, str(log))
    assert code == 1
    assert [(i["record"], i["line"], i["exception"], i["frames"], i["bare"]) for i in items] == [
        (INPLACE_ID, 2, "RuntimeError", [], True)
    ]
    code, out, _ = explain(capsys, str(log))
    assert f"{log}:2 [rank0]: RuntimeError — explained by {INPLACE_ID}" in out
    assert "no traceback, only the message: no frames, so no source line" in out
    assert out.endswith("1 error message(s) without a traceback, 1 explained by a record.\n")


def test_a_message_without_an_exception_class_is_recognised_by_its_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    quoted = "I get this:\n\n  " + INPLACE_LINE.removeprefix("RuntimeError: ") + "\n\nany idea?\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(quoted.encode())))
    code, items = explain_json(capsys, "-")
    assert code == 1
    assert [(i["record"], i["line"], i["exception"], i["bare"]) for i in items] == [(INPLACE_ID, 3, "", True)]


def test_an_unknown_bare_error_line_is_listed_as_unexplained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "quote.txt"
    log.write_text("it fails with\nValueError: dataset attribute should not be set\n", encoding="utf-8")
    assert explain_json(capsys, str(log)) == (
        0,
        [
            {
                "record": None,
                "source": str(log),
                "line": 2,
                "cell": None,
                "exception": "ValueError",
                "message": "dataset attribute should not be set",
                "frames": [],
                "user_frame": None,
                "bare": True,
            }
        ],
    )
    assert f"{log}:2: ValueError: dataset attribute should not be set" in explain(capsys, str(log))[1]


def test_a_traceback_in_the_input_means_no_bare_lines_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "both.log"
    log.write_text(f"{INPLACE_LINE}\n" + UNKNOWN_TRACEBACK, encoding="utf-8")
    assert [(i["record"], i["exception"], i["bare"]) for i in explain_json(capsys, str(log))[1]] == [
        (None, "ValueError", False)
    ]


def test_no_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "quiet.log"
    log.write_text("epoch 1 loss 0.3\nepoch 2 loss 0.2\n", encoding="utf-8")
    assert explain_json(capsys, str(log)) == (0, [])
    assert explain(capsys, str(log)) == (0, "No Python traceback or error message found.\n", "")


def test_unreadable_input_exits_2_after_explaining_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.log"
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json", encoding="utf-8")
    code, out, err = explain(capsys, str(missing), str(broken), str(EXAMPLE), "--format", "json")
    assert code == 2
    assert [item["record"] for item in json.loads(out)] == [SHIPPED_ID]
    assert err.splitlines() == [
        f"error: {missing}: No such file or directory",
        f"error: {broken}: not JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)",
    ]


def test_text_explains_what_why_and_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = explain(capsys, str(EXAMPLE))
    assert code == 1
    record = KnowledgeBase.load().get(SHIPPED_ID)
    assert record is not None
    assert out.startswith(f"{EXAMPLE}:17: RuntimeError — explained by {SHIPPED_ID}")
    headings = ["What happened", "Where in your code", "Why", "What not to do", "What to do"]
    assert [line.strip() for line in out.splitlines() if line.strip() in headings] == headings
    assert f"    {EXAMPLE_PROGRAM}:33 in main\n" in out
    flat = " ".join(out.split())
    assert record.root_cause in flat
    assert "(fails in 4 of 5 reproductions)" in flat  # measured: records/repro/<slug>.py
    # By rate (1.0 for the three meant for some variants, 0.2 for retain_graph), then by reach:
    # detaching applies to 3 of 5 reproductions, the other two to 1 each.
    ranked = [record.workarounds[i] for i in (3, 1, 2, 0)]
    positions = [flat.index(w.action[:60]) for w in ranked]
    assert positions == sorted(positions)
    assert f"Docs: {record.official_doc_url}" in out


def test_zh_uses_zh_fields_and_falls_back_per_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = explain(capsys, str(EXAMPLE), "--locale", "zh")
    assert code == 1
    record = read_json(SHIPPED_FILE)
    flat = "".join(out.split())
    assert "".join(record["root_cause_zh"].split()) in flat
    assert "".join(record["workarounds_zh"][0].split()) in flat
    action, why = record["dead_ends_zh"][0].split(" — ")
    assert "".join(action.split()) in flat and "".join(why.split()) in flat
    assert "不要这样做" in out and "应该这样做" in out
    assert "已验证" in out and "verified" not in out
    record["root_cause_zh"] = ""
    record["workarounds_zh"] = record["workarounds_zh"][:1]
    record["dead_ends_zh"] = []
    write_json(tmp_path / "records" / "override.json", record)
    _, out, _ = explain(capsys, str(EXAMPLE), "--locale", "zh", "--records", str(tmp_path / "records"))
    flat = "".join(out.split())
    assert "".join(record["root_cause"].split()) in flat
    assert "".join(record["workarounds"][1]["action"].split()) in flat
    assert "".join(record["dead_ends"][0]["action"].split()) in flat


def test_records_option_adds_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "probe.log"
    log.write_text(UNKNOWN_TRACEBACK, encoding="utf-8")
    unpack = read_json(SHIPPED_FILE) | {
        "id": "test/too-many-values",
        "regex": r"too many values to unpack",
        "signature": "ValueError: too many values to unpack (expected 2)",
        "aliases": [],
        "citations": [],
    }
    write_json(tmp_path / "records" / "unpack.json", unpack)
    code, items = explain_json(capsys, str(log), "--records", str(tmp_path / "records"))
    assert code == 1
    assert [item["record"] for item in items] == ["test/too-many-values"]


def test_utf16_capture_from_powershell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "ps.log"
    log.write_bytes(EXAMPLE.read_text(encoding="utf-8").replace("\n", "\r\n").encode("utf-16"))
    code, items = explain_json(capsys, str(log))
    assert (code, [(item["record"], item["line"]) for item in items]) == (1, [(SHIPPED_ID, 17)])


def test_stdin_through_the_real_command() -> None:
    command = [sys.executable, "-m", "errknow_ls", "explain", "--format", "json"]
    for args in ([], ["-"]):
        done = subprocess.run(
            [*command, *args], input=EXAMPLE.read_bytes(), capture_output=True, check=False, timeout=60
        )
        assert done.returncode == 1, done.stderr
        (item,) = json.loads(done.stdout)
        assert (item["source"], item["record"], item["line"]) == ("-", SHIPPED_ID, 17)


def test_notebook_items_have_a_cell_and_no_line(
    captures: Captures, capsys: pytest.CaptureFixture[str]
) -> None:
    notebook = captures["notebook"].path
    code, items = explain_json(capsys, str(notebook))
    assert code == 1
    assert [(i["cell"], i["line"], i["record"]) for i in items] == [
        (2, None, SHIPPED_ID),
        (3, None, SHAPE_ID),
        (4, None, INPLACE_ID),
    ]


def test_text_tells_a_torchrun_error_once_for_every_rank(
    captures: Captures, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = captures["torchrun-tee"]
    code, out, _ = explain(capsys, str(capture.path))
    assert code == 1
    assert out.count("— explained by") == 1
    seen = " ".join(out.split()).split("seen 4 times: ")[1]
    assert "[default0:rank0]" in seen and "[default1:rank1]" in seen
