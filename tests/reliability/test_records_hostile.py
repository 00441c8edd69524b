"""Hostile records in a workspace's ``.errknow/records``: each bad file is skipped with a message
that names it, and every other record keeps loading and matching."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errknow_ls.kb import KnowledgeBase
from errknow_ls.tracebacks import match_tracebacks, read_tracebacks
from tests.reliability.campaign import examples
from tests.support import GOOD_FILE, GOOD_ID, SHIPPED_ID, read_json, write_json

GOOD = read_json(GOOD_FILE)
SECOND_PASS = (
    b"Traceback (most recent call last):\n"
    b'  File "/home/me/train.py", line 12, in <module>\n'
    b"RuntimeError: Trying to backward through the graph a second time (or directly access saved "
    b"tensors after they have already been freed).\n"
)


def _record(directory: Path, name: str, **fields: Any) -> Path:
    return write_json(directory / name, GOOD | {"id": f"test/{Path(name).stem}"} | fields)


def _still_working(kb: KnowledgeBase) -> None:
    """The good record and the shipped ones still load and match."""
    assert kb.get(GOOD_ID) is not None
    found = match_tracebacks(kb, read_tracebacks(SECOND_PASS))
    assert [match.record.id if match.record else None for match in found] == [SHIPPED_ID]
    assert [match.record.id for match in kb.match("RuntimeError: the widget exploded")] == [GOOD_ID]


def _problems(kb: KnowledgeBase, name: str) -> list[str]:
    return [f"{problem.field}: {problem.message}" for problem in kb.problems if problem.path.endswith(name)]


# ----------------------------------------------------------------------------- regexes

COMPILE_BOMBS = [
    r"((((a{100}){100}){100}){100})",
    r"(?:x{99999}){99999}",
    r"(?:(?:a{1000}){1000}){1000}",
    r"(?:\p{L}{500}|b){500}",
    r"[a-z]{60000}[0-9]{60000}",
]


@pytest.mark.parametrize("pattern", COMPILE_BOMBS)
def test_a_regex_that_unrolls_to_gigabytes_is_rejected_before_compiling(tmp_path: Path, pattern: str) -> None:
    """``regex`` builds every copy of a counted repeat: these filled gigabytes (or got the process
    killed) inside ``regex.compile``, where no timeout applies."""
    _record(tmp_path, "bomb.json", regex=pattern)
    _record(tmp_path, "good.json")
    kb = KnowledgeBase.load([tmp_path])
    problems = _problems(kb, "bomb.json")
    assert len(problems) == 1 and problems[0].startswith("regex: rejected: its repeats unroll to about")
    _still_working(kb)


def test_a_huge_regex_is_rejected(tmp_path: Path) -> None:
    _record(tmp_path, "huge.json", regex="[" + "a-z" * 100_000 + "]")
    _record(tmp_path, "good.json")
    kb = KnowledgeBase.load([tmp_path])
    assert _problems(kb, "huge.json") == ["regex: rejected: 300,002 characters long (the limit is 10,000)"]
    _still_working(kb)


@pytest.mark.parametrize(
    "pattern", [".*", "", "(?:)", r"\w*", ".", "(?s).+", "x?", "|RuntimeError", r"[\s\S]"]
)
def test_a_regex_found_in_any_text_is_rejected(tmp_path: Path, pattern: str) -> None:
    """It would claim every traceback (a user record wins over a shipped one with a higher confidence)."""
    _record(tmp_path, "everything.json", regex=pattern or "(?:)", confidence=1.0)
    _record(tmp_path, "good.json")
    kb = KnowledgeBase.load([tmp_path])
    assert "test/everything" not in kb
    assert len(_problems(kb, "everything.json")) == 1
    _still_working(kb)


# Fine on the record's own short message; on a long line it backtracks for hours.
SLOW_ON_LONG_LINES = r"widget (?:(?:\w|\s)+)+\d"


def test_a_regex_catastrophic_only_on_a_long_log_line_times_out_in_explain(tmp_path: Path) -> None:
    records = tmp_path / "records"
    _record(records, "slow.json", regex=SLOW_ON_LONG_LINES, signature="RuntimeError: widget exploded 1")
    kb = KnowledgeBase.load([records])
    assert "test/slow" in kb and kb.problems == []
    log = tmp_path / "train.log"
    long_line = b"RuntimeError: widget " + b"word " * 5_000 + b"?\n"
    log.write_bytes(SECOND_PASS.replace(SECOND_PASS.splitlines(keepends=True)[-1], long_line) + SECOND_PASS)
    explain = Path(sys.executable).parent / "errknow-ls"
    done = subprocess.run(
        [str(explain), "explain", "--format", "json", "--records", str(records), str(log)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "slow.json: regex: regex timed out; record disabled" in done.stderr
    assert [item["record"] for item in json.loads(done.stdout)] == [None, SHIPPED_ID]


# ----------------------------------------------------------------------------- files


def test_hostile_files_are_skipped_with_a_message(tmp_path: Path) -> None:
    _record(tmp_path, "good.json")
    latin1 = json.dumps(GOOD | {"id": "test/latin1"}).encode().replace(b"widget", b"w\xe9")
    (tmp_path / "latin1.json").write_bytes(latin1)
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "large.json").write_text(json.dumps(GOOD | {"root_cause": "x" * 2_000_000}))
    (tmp_path / "binary.json").write_bytes(bytes(range(256)) * 10)
    (tmp_path / "empty.json").write_bytes(b"")
    write_json(tmp_path / "list.json", [GOOD])
    write_json(tmp_path / "types.json", GOOD | {"confidence": "high", "aliases": "one", "tags": {"a": 1}})
    os.mkfifo(tmp_path / "fifo.json")
    kb = KnowledgeBase.load([tmp_path])
    for name in ("latin1", "deep", "large", "binary", "empty", "list", "types"):
        assert _problems(kb, f"{name}.json"), name
    assert _problems(kb, "types.json") == [
        "confidence: Input should be a valid number, unable to parse string as a number",
        "tags: Input should be a valid list",
        "aliases: Input should be a valid list",
    ]
    assert len(kb) == len(KnowledgeBase.load()) + 1
    _still_working(kb)


# ----------------------------------------------------------------------------- generated JSON

json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
FIELDS = [*sorted(GOOD), "versions", "dead_ends", "workarounds", "transition_graph", "citations", "history"]


@examples(ci=60, long=20_000)
@given(
    st.one_of(
        json_values,
        st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6).map(lambda d: GOOD | d),
        st.builds(lambda p: GOOD | {"regex": p}, st.text(max_size=40)),
        st.builds(lambda p: GOOD | {"regex": p}, st.from_regex(r"[(\[{a.*+?|}\])\\0-9,]{1,30}")),
    )
)
def test_generated_records_load_or_are_skipped_with_a_message(data: object) -> None:
    with tempfile.TemporaryDirectory(prefix="errknow-records-fuzz-") as scratch:
        write_json(Path(scratch) / "fuzz.json", data)
        kb = KnowledgeBase.load([Path(scratch)], builtin=False)
    if len(kb):
        assert kb.problems == []
        kb.match("RuntimeError: the widget exploded " * 20)
    else:
        assert kb.problems and all(problem.path.endswith("fuzz.json") for problem in kb.problems)


def test_records_search_only_the_head_of_a_runaway_message(tmp_path: Path) -> None:
    """A message of 40 lines of 1 MB (a print that ran away) was searched whole, by every record:
    seconds per traceback (4.6 s here). Records see its first 64 KiB, where a message says what it is."""
    _record(tmp_path, "tail.json", regex=r"y{40000} y{40000}", confidence=1.0)  # only past 1 MB
    kb = KnowledgeBase.load([tmp_path])
    assert kb.problems == []
    runaway = SECOND_PASS + b"".join(b"y" * 1_000_000 + b"\n" for _ in range(40))
    found = match_tracebacks(kb, read_tracebacks(runaway))
    assert [match.record.id if match.record else None for match in found] == [SHIPPED_ID]
    own_message = "RuntimeError: " + "y" * 40000 + " " + "y" * 40000
    assert [match.record.id for match in kb.match(own_message)] == ["test/tail"]
