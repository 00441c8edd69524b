"""The ``check`` cache: a warm run says exactly what a cold one said, and never anything stale.

Where a test must know that a result came from the cache, it overwrites a file with other bytes of
the same size, puts its modification time back and writes the file's new stat into the cache, as if
the cache had been written after the swap (a status change time cannot be set back): only a run
that trusted the cache still reports what the old bytes held.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import errknow_ls.analysis.modules as modules_module
import errknow_ls.runner.cache as cache_module
from errknow_ls.cli import EXIT_ERROR, EXIT_FOUND, EXIT_OK
from errknow_ls.core import Finding, Severity
from errknow_ls.project import RuleSelection
from errknow_ls.project.results_cache import (
    CACHE_DIRNAME,
    UNTRUSTED_STAT,
    CachedEntry,
    cache_key,
    checker_fingerprint,
    decode_entry,
    encode_entry,
)
from tests.core.test_codec import FINDING
from tests.runner.test_check_cli import CLEAN, DOUBLE, GRAD_FIXED, GRAD_THEN_BACKWARD, Run, write
from tests.runner.test_check_notebooks import training_notebook
from tests.support import REPO

FIXTURES = REPO / "tests" / "analysis" / "fixtures"
HOUR_AGO_NS = time.time_ns() - 3600 * 10**9


def age(*paths: Path) -> None:
    """Modified an hour ago: old enough for the cache to trust the size and time."""
    for path in paths:
        os.utime(path, ns=(HOUR_AGO_NS, HOUR_AGO_NS))


def swap_keeping_size_and_time(path: Path, text: str) -> None:
    """Other bytes of the same size, with the old modification time."""
    info = path.stat()
    data = text.encode()[: info.st_size]
    path.write_bytes(data + b"#" * (info.st_size - len(data)))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def _stat_now(name: str) -> list[int]:
    info = Path(name).stat()
    return [info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns]


def trust_the_current_stats(tmp_path: Path) -> None:
    """Every file the cache names, checked (``files``) or read as a module (a row of ``read``:
    ``[path, what it said, *stat]``), is kept with its stat as it is now: the next run reads none."""
    cache_file = _cache_file(tmp_path)
    data = json.loads(cache_file.read_text())
    for name, entry in data["files"].items():
        data["files"][name] = [*_stat_now(name), entry[-1]]
    data["read"] = [[key, said, *_stat_now(key)] for key, said, *_ in data["read"]]
    cache_file.write_text(json.dumps(data))


def project(tmp_path: Path) -> list[Path]:
    """Every rule fixture (findings with fixes, related places, suppressions), a file that does not
    parse, a CRLF file and one in Latin-1: what an output format can say about a file."""
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    write(tmp_path / "broken.py", DOUBLE + "def oops(:\n")
    write(tmp_path / "crlf.py", GRAD_THEN_BACKWARD, newline="\r\n")
    latin = "# -*- coding: latin-1 -*-\n" + DOUBLE.replace("import torch\n", "import torch  # café\n", 1)
    (tmp_path / "latin.py").write_bytes(latin.encode("latin-1"))
    files = sorted(tmp_path.rglob("*.py"))
    age(*files)
    return files


def blank_out(files: list[Path]) -> None:
    for path in files:
        swap_keeping_size_and_time(path, "")


@pytest.mark.parametrize("output", ["text", "json", "sarif"])
def test_a_warm_run_says_exactly_what_the_cold_run_said(run: Run, tmp_path: Path, output: str) -> None:
    files = project(tmp_path)
    cold = run("--format", output)
    assert cold[0] == EXIT_FOUND and "syntax error" in cold[2]
    blank_out(files)
    trust_the_current_stats(tmp_path)
    assert run("--format", output) == cold
    assert run("--format", output, "--no-cache")[:2] != cold[:2], "the files say nothing any more"


def test_the_cache_directory_is_at_the_project_root_tagged_and_ignored(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.errknow]\n")
    write(tmp_path / "pkg" / "train.py", DOUBLE)
    os.chdir(tmp_path / "pkg")  # the fixture's monkeypatch puts the directory back
    assert run(".")[0] == EXIT_FOUND
    cache = tmp_path / CACHE_DIRNAME
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert not (tmp_path / "pkg" / CACHE_DIRNAME).exists()
    assert run("--format", "json")[0] == EXIT_FOUND, "the cache directory itself is never checked"


def test_no_cache_neither_reads_nor_writes(run: Run, tmp_path: Path) -> None:
    train = write(tmp_path / "train.py", DOUBLE)
    age(train)
    assert run("--no-cache")[0] == EXIT_FOUND
    assert not (tmp_path / CACHE_DIRNAME).exists()
    assert run()[0] == EXIT_FOUND
    swap_keeping_size_and_time(train, CLEAN)
    trust_the_current_stats(tmp_path)
    assert run("--no-cache")[0] == EXIT_OK
    assert run()[0] == EXIT_FOUND, "the cache still answers for the old bytes"


def test_cache_dir_option_and_setting(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.errknow]\ncache-dir = "build/errknow"\n')
    write(tmp_path / "train.py", DOUBLE)
    assert run()[0] == EXIT_FOUND
    assert (tmp_path / "build" / "errknow" / "CACHEDIR.TAG").is_file()
    assert run("--cache-dir", "elsewhere")[0] == EXIT_FOUND
    assert (tmp_path / "elsewhere" / "CACHEDIR.TAG").is_file()
    assert not (tmp_path / CACHE_DIRNAME).exists()
    write(tmp_path / "pyproject.toml", "[tool.errknow]\ncache-dir = 3\n")
    code, _, err = run()
    assert code == EXIT_FOUND and "cache-dir: expected a string; using the default" in err
    assert (tmp_path / CACHE_DIRNAME / "CACHEDIR.TAG").is_file()


def test_an_edited_file_is_checked_again(run: Run, tmp_path: Path) -> None:
    train = write(tmp_path / "train.py", DOUBLE)
    age(train)
    assert run()[0] == EXIT_FOUND
    write(train, CLEAN)
    assert run() == (EXIT_OK, "All checks passed!\n", "")
    write(train, DOUBLE)
    assert run()[0] == EXIT_FOUND


def checked_then_swapped_unseen(run: Run, tmp_path: Path, text: str) -> Path:
    """``train.py`` holding ``text``, checked, then holding clean bytes under a stat the cache trusts."""
    train = write(tmp_path / "train.py", text)
    age(train)
    assert run()[0] == EXIT_FOUND
    swap_keeping_size_and_time(train, CLEAN)
    trust_the_current_stats(tmp_path)
    return train


def test_an_unchanged_stat_spares_reading_the_file(run: Run, tmp_path: Path) -> None:
    checked_then_swapped_unseen(run, tmp_path, DOUBLE)
    assert run()[0] == EXIT_FOUND, "the whole stat matched: the old result stands, unread"


def test_other_bytes_under_the_same_size_and_time_are_read_again(run: Run, tmp_path: Path) -> None:
    """Writing them changed the status change time, which no program can put back."""
    train = write(tmp_path / "train.py", DOUBLE)
    age(train)
    assert run()[0] == EXIT_FOUND
    trust_the_current_stats(tmp_path)  # as a cache written long after the first run would be
    before = train.stat()
    swap_keeping_size_and_time(train, CLEAN)
    while train.stat().st_ctime_ns == before.st_ctime_ns:  # within the clock's tick: write again
        swap_keeping_size_and_time(train, CLEAN)
    after = train.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert run() == (EXIT_OK, "All checks passed!\n", "")


def test_a_file_replaced_by_another_with_the_same_size_and_time_is_read_again(
    run: Run, tmp_path: Path
) -> None:
    """An editor's atomic save, ``cp -p``: another inode."""
    train = write(tmp_path / "train.py", DOUBLE)
    age(train)
    assert run()[0] == EXIT_FOUND
    trust_the_current_stats(tmp_path)
    before = train.stat()
    other = tmp_path / "other.txt"
    other.write_bytes(CLEAN.encode()[: before.st_size].ljust(before.st_size, b"#"))
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    other.replace(train)
    assert train.stat().st_ino != before.st_ino
    assert run() == (EXIT_OK, "All checks passed!\n", "")


def test_a_file_modified_just_before_the_run_is_read_again(run: Run, tmp_path: Path) -> None:
    """Its size and time are not kept: a second edit in the same tick would not change them."""
    train = write(tmp_path / "train.py", DOUBLE)
    assert run()[0] == EXIT_FOUND
    swap_keeping_size_and_time(train, CLEAN)
    assert run() == (EXIT_OK, "All checks passed!\n", "")


def test_a_touched_but_unchanged_file_is_not_checked_again(run: Run, tmp_path: Path) -> None:
    files = project(tmp_path)
    cold = run("--format", "json")
    for path in files:
        os.utime(path)
    warm = run("--format", "json")
    assert warm == cold
    cache_file = next((tmp_path / CACHE_DIRNAME).glob("*/*.json"))
    entries = json.loads(cache_file.read_text())["files"]
    assert {entry[0] for entry in entries.values()} == {-1}, "times this recent are not trusted"


@pytest.mark.parametrize(
    ("options", "found"),
    [
        ((), True),
        (("--ignore", "EK001"), False),
        (("--select", "EK001"), True),
        (("--select", "EK004"), False),
    ],
)
def test_options_that_change_findings_have_caches_of_their_own(
    run: Run, tmp_path: Path, options: tuple[str, ...], found: bool
) -> None:
    train = write(tmp_path / "train.py", DOUBLE)
    age(train)
    assert run("--ignore", "EK001")[0] == EXIT_OK
    assert run("--select", "EK004")[0] == EXIT_OK
    assert run(*options)[0] == (EXIT_FOUND if found else EXIT_OK)
    assert run("--ignore", "EK001")[0] == EXIT_OK


DAMAGE = {
    "garbage": b"\x00\xff not json",
    "truncated": None,
    "empty": b"",
    "a list": b"[]",
    "wrong format": json.dumps({"format": 0}).encode(),
}


def _cache_file(tmp_path: Path) -> Path:
    (cache_file,) = (tmp_path / CACHE_DIRNAME).glob("*/*.json")
    return cache_file


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_cache_is_ignored(run: Run, tmp_path: Path, damage: str) -> None:
    files = project(tmp_path)
    cold = run("--format", "json")
    cache_file = _cache_file(tmp_path)
    data = cache_file.read_bytes()
    damaged = DAMAGE[damage]
    cache_file.write_bytes(data[: len(data) // 2] if damaged is None else damaged)
    blank_out(files)
    fresh = run("--format", "json")
    assert cold[0] == EXIT_FOUND
    assert fresh == (EXIT_OK, "[]\n", "")
    assert run("--format", "json") == fresh, "the cache was rewritten and reads back"


def test_damaged_entries_are_ignored_one_by_one(run: Run, tmp_path: Path) -> None:
    one = write(tmp_path / "one.py", DOUBLE)
    two = write(tmp_path / "two.py", DOUBLE.replace("model", "net"))
    age(one, two)
    assert run()[0] == EXIT_FOUND
    cache_file = _cache_file(tmp_path)
    data = json.loads(cache_file.read_text())
    first, second = sorted(data["results"])
    data["results"][first] = ['{"findings": [{"code": 1}], "errors": []}', []]
    data["results"][second] = ["not json", []]
    data["files"][str(one)] = ["size", 0, first]
    cache_file.write_text(json.dumps(data))
    swap_keeping_size_and_time(one, CLEAN)
    swap_keeping_size_and_time(two, CLEAN)
    assert run() == (EXIT_OK, "All checks passed!\n", "")


def test_fix_never_trusts_the_cache_for_a_file_it_may_write(run: Run, tmp_path: Path) -> None:
    train = write(tmp_path / "train.py", GRAD_THEN_BACKWARD)
    age(train)
    assert run()[0] == EXIT_FOUND
    assert run("--fix") == (EXIT_OK, "Found 1 error (1 fixed, 0 remaining).\n", "")
    assert train.read_text() == GRAD_FIXED
    assert run() == (EXIT_OK, "All checks passed!\n", "")


def test_fix_reads_a_file_the_cache_says_it_would_fix(run: Run, tmp_path: Path) -> None:
    train = checked_then_swapped_unseen(run, tmp_path, GRAD_THEN_BACKWARD)
    swapped = train.read_bytes()
    assert run("--fix") == (EXIT_OK, "All checks passed!\n", "")
    assert train.read_bytes() == swapped


def test_an_unwritable_cache_warns_and_the_run_goes_on(run: Run, tmp_path: Path) -> None:
    write(tmp_path / "train.py", DOUBLE)
    (tmp_path / "blocker").write_text("a file, not a directory")
    code, out, err = run("--cache-dir", "blocker")
    assert code == EXIT_FOUND and "EK001" in out
    assert err.startswith("warning: cannot write the cache in blocker")


def test_the_key_follows_the_checker_sources_and_the_rules(tmp_path: Path) -> None:
    for part in ("core", "analysis", "runner"):
        write(tmp_path / part / "module.py", "X = 1\n")
    before = checker_fingerprint(tmp_path)
    assert checker_fingerprint(tmp_path) == before
    write(tmp_path / "analysis" / "module.py", "X = 2\n")
    edited = checker_fingerprint(tmp_path)
    assert edited != before
    write(tmp_path / "lsp" / "module.py", "X = 3\n")
    assert checker_fingerprint(tmp_path) == edited, "only what finds and fixes counts"
    keys = {
        cache_key(RuleSelection(), before),
        cache_key(RuleSelection(), edited),
        cache_key(RuleSelection(frozenset({"EK001"})), before),
        cache_key(RuleSelection(ignore=frozenset({"EK001"})), before),
    }
    assert len(keys) == 4
    assert checker_fingerprint() == checker_fingerprint(REPO / "errknow_ls")


def test_entries_read_back_exactly_and_damage_is_refused() -> None:
    """The finding's own form is core.codec's (tests/core/test_codec.py); here, the entry around it."""
    finding, span = FINDING, FINDING.span
    entry = CachedEntry([finding, Finding("EK002", "n", "r", Severity.ERROR, "m", span)], ["line 9: bad"])
    raw = encode_entry(entry)
    assert decode_entry(raw) == entry
    data = json.loads(raw)
    damages: list[Callable[[Any], object]] = [
        lambda d: d["findings"][0].update(severity="fatal"),
        lambda d: d["findings"][0].update(span=[1, 2, 3]),
        lambda d: d["findings"][0]["fixes"][0].update(workaround="1"),
        lambda d: d["findings"][0].pop("tensor"),
        lambda d: d.update(errors=[1]),
    ]
    for damage in damages:
        damaged = json.loads(raw)
        damage(damaged)
        with pytest.raises(ValueError):
            decode_entry(json.dumps(damaged))
    assert data == json.loads(encode_entry(decode_entry(raw)))


@pytest.mark.parametrize("kind", ["FIFO", "/dev/zero"])
def test_a_cache_that_is_not_a_regular_file_is_ignored_and_replaced(
    run: Run, tmp_path: Path, kind: str
) -> None:
    write(tmp_path / "a.py", DOUBLE)
    cold = run()
    cache_file = _cache_file(tmp_path)
    cache_file.unlink()
    if kind == "FIFO":
        os.mkfifo(cache_file)
    else:
        cache_file.symlink_to("/dev/zero")
    code, out, err = run()
    what = "a FIFO (named pipe)" if kind == "FIFO" else "a character device"
    assert (code, out) == cold[:2]
    assert err == f"warning: the cache {cache_file} is ignored: not a regular file: {what}\n"
    assert cache_file.is_file() and not cache_file.is_symlink()
    assert run() == cold


@pytest.mark.parametrize(
    ("read", "line"), [(False, 1_000_000_000), (True, 1_000_000_000), (True, 40), (True, 8)]
)
def test_an_entry_whose_spans_lie_outside_its_file_is_dropped(
    run: Run, tmp_path: Path, read: bool, line: int
) -> None:
    """Checked against the file's size when the cache spares reading it, against its text when read
    (line 40 is within the size of the file, past its last line; line 8 ends past its last column)."""
    path = write(tmp_path / "a.py", DOUBLE)
    if not read:
        age(path)
    cold = run("--format", "json")
    cache_file = _cache_file(tmp_path)
    data = json.loads(cache_file.read_text())
    (digest,) = data["results"]
    wrong = f'"span":[{line},0,{line},500]'
    entry = data["results"][digest]
    entry[0] = re.sub(r'"span":\[7,\d+,7,\d+\]', wrong, entry[0], count=1)
    assert wrong in entry[0]
    cache_file.write_text(json.dumps(data))
    assert run("--format", "json") == cold
    assert wrong not in cache_file.read_text()


def test_a_result_that_read_a_project_module_stands_only_while_the_module_says_the_same(
    run: Run, tmp_path: Path
) -> None:
    """train.py's finding is in utils.py's helper: the cache keeps it while utils.py is the same, and
    checks train.py again once utils.py changes (train.py's own bytes did not)."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    for name in ("train.py", "utils.py"):
        shutil.copy(projects / name, tmp_path / name)
    first = run("--output-format", "json", "train.py")
    assert first[0] == EXIT_FOUND
    assert run("--output-format", "json", "train.py") == first
    entries = json.loads(next((tmp_path / CACHE_DIRNAME).glob("*/*.json")).read_text(encoding="utf-8"))
    assert "utils.py" in json.dumps(entries)
    (tmp_path / "utils.py").write_text(
        "def smooth(state, factor=0.9):\n    return (state * factor).detach()\n"
    )
    assert run("--output-format", "json", "train.py")[:2] == (EXIT_OK, "[]\n")


@pytest.mark.parametrize("trusted", [True, False])
def test_a_module_rewritten_under_the_same_size_and_time_is_read_again(
    run: Run, tmp_path: Path, trusted: bool
) -> None:
    """utils.py made to detach under its old size and time: a run reads it again, unless its stat
    is the one the cache kept (then the old result stands, utils.py unread)."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    for name in ("train.py", "utils.py"):
        shutil.copy(projects / name, tmp_path / name)
    age(tmp_path / "train.py", tmp_path / "utils.py")
    first = run("--output-format", "json", "train.py")
    assert first[0] == EXIT_FOUND
    assert run("--output-format", "json", "train.py") == first, "a warm run keeps utils.py's stat"
    trust_the_current_stats(tmp_path)
    swap_keeping_size_and_time(
        tmp_path / "utils.py", "def smooth(state, factor=0.9):\n    return (state * factor).detach()\n"
    )
    if trusted:
        trust_the_current_stats(tmp_path)
        assert run("--output-format", "json", "train.py") == first
    else:
        assert run("--output-format", "json", "train.py")[:2] == (EXIT_OK, "[]\n")
        assert run("--output-format", "json", "train.py")[:2] == (EXIT_OK, "[]\n")
        read = json.loads(_cache_file(tmp_path).read_text())["read"]
        kept = [key for key, *_ in read]
        assert kept.count(str(tmp_path / "utils.py")) == 1, "what the old utils.py said went"


def test_files_that_read_one_module_share_its_row_and_are_each_checked_again_when_it_changes(
    run: Run, tmp_path: Path
) -> None:
    """Two training scripts call the same helper: the cache keeps one row for utils.py, which both
    entries name; once utils.py detaches, neither old result stands (their own bytes did not change)."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    shutil.copy(projects / "utils.py", tmp_path / "utils.py")
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    write(tmp_path / "train_again.py", (projects / "train.py").read_text() + "# once more\n")
    age(*tmp_path.glob("*.py"))
    first = run("--output-format", "json", "train.py", "train_again.py")
    assert first[0] == EXIT_FOUND and len(json.loads(first[1])) == 2
    assert run("--output-format", "json", "train.py", "train_again.py") == first
    trust_the_current_stats(tmp_path)
    data = json.loads(_cache_file(tmp_path).read_text())
    (row,) = [number for number, (key, *_) in enumerate(data["read"]) if key == str(tmp_path / "utils.py")]
    assert len(data["results"]) == 2 and all(row in reads for _, reads in data["results"].values())
    (tmp_path / "utils.py").write_text(
        "def smooth(state, factor=0.9):\n    return (state * factor).detach()\n"
    )
    assert run("--output-format", "json", "train.py", "train_again.py")[:2] == (EXIT_OK, "[]\n")


@pytest.mark.parametrize("reads", ["false", "-1", "past the table", "a string", "a float"])
def test_an_entry_whose_reads_name_no_row_does_not_stand(run: Run, tmp_path: Path, reads: str) -> None:
    """train.py's entry names the rows of what it read; damaged, they name none (``False`` equals 0
    but is no row number, though row 0 is there and still holds, looked at first for a.py), so once
    utils.py detaches, train.py is checked again instead of the old result being taken."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    shutil.copy(projects / "utils.py", tmp_path / "utils.py")
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    write(tmp_path / "a.py", (projects / "train.py").read_text() + "# the same, looked up first\n")
    age(*tmp_path.glob("*.py"))
    assert run("a.py", "train.py")[0] == EXIT_FOUND
    trust_the_current_stats(tmp_path)
    cache_file = _cache_file(tmp_path)
    data = json.loads(cache_file.read_text())
    utils_row = [number for number, (key, *_) in enumerate(data["read"]) if key == str(tmp_path / "utils.py")]
    assert len(data["read"]) >= 2 and utils_row != [0], "row 0 holds whatever utils.py says"
    damaged: dict[str, object] = {
        "false": False,
        "-1": -1,
        "past the table": len(data["read"]),
        "a string": "0",
        "a float": 0.0,
    }
    (train,) = {entry[-1] for name, entry in data["files"].items() if name.endswith("train.py")}
    data["results"][train][1] = [damaged[reads]]
    cache_file.write_text(json.dumps(data))
    (tmp_path / "utils.py").write_text(
        "def smooth(state, factor=0.9):\n    return (state * factor).detach()\n"
    )
    assert run("a.py", "train.py") == (EXIT_OK, "All checks passed!\n", "")


def test_a_result_whose_import_found_nothing_stands_only_until_the_module_is_made(
    run: Run, tmp_path: Path
) -> None:
    """train.py imports utils, which is not there yet: nothing is reported. Once utils.py is made in
    the folder where the import looked, the next run reads it (train.py's bytes did not change)."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    assert run("--output-format", "json", "train.py")[:2] == (EXIT_OK, "[]\n")
    assert run("--output-format", "json", "train.py")[:2] == (EXIT_OK, "[]\n")
    shutil.copy(projects / "utils.py", tmp_path / "utils.py")
    assert run("--output-format", "json", "train.py")[0] == EXIT_FOUND


def test_the_run_that_read_a_module_keeps_its_stat_so_the_next_run_reads_none(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """train.py imports utils.py: the run that checks it records utils.py's row (and the folder's
    where `import torch` found nothing) and, before it writes the cache, looks at each once more and
    keeps the stat it has then. The next run takes both rows on their stats: it reads no module.
    (Files made this instant are racy, their stats never kept: the window is closed here.)"""
    monkeypatch.setattr(cache_module, "RACY_NS", 0)
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    shutil.copy(projects / "utils.py", tmp_path / "utils.py")
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    first = run("--output-format", "json", "train.py")
    assert first[0] == EXIT_FOUND
    rows = json.loads(_cache_file(tmp_path).read_text())["read"]
    assert {key for key, *_ in rows} >= {str(tmp_path), str(tmp_path / "utils.py")}
    assert all(stat != [-1, -1, -1, -1] for _, _, *stat in rows), rows
    read_again: list[str] = []
    monkeypatch.setattr(modules_module, "says_the_same", lambda _texts, key, _said: read_again.append(key))
    assert run("--output-format", "json", "train.py") == first
    assert read_again == []


def test_a_folder_row_that_says_more_after_a_new_look_is_looked_at_again_before_the_write(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """other.py's check made the folder's row (helpers: not there); the next run takes other.py
    from the cache on that row, then checks the new train.py, whose look (utils: not there) is
    joined into the same row: the row says more than what was looked at, so it is looked at again
    before the cache is written, and the run after reads nothing."""
    monkeypatch.setattr(cache_module, "RACY_NS", 0)
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    write(tmp_path / "other.py", (projects / "train.py").read_text().replace("from utils", "from helpers"))
    assert run("--output-format", "json", "other.py")[:2] == (EXIT_OK, "[]\n")
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    assert run("--output-format", "json", "other.py", "train.py")[:2] == (EXIT_OK, "[]\n")
    rows = json.loads(_cache_file(tmp_path).read_text())["read"]
    (folder,) = [row for row in rows if row[0] == str(tmp_path)]
    assert "helpers.py=0" in folder[1] and "utils.py=0" in folder[1]
    assert folder[2:] != [-1, -1, -1, -1], folder
    read_again: list[str] = []
    monkeypatch.setattr(modules_module, "says_the_same", lambda _texts, key, _said: read_again.append(key))
    assert run("--output-format", "json", "other.py", "train.py")[:2] == (EXIT_OK, "[]\n")
    assert read_again == []


@pytest.mark.parametrize("stat_kept", [True, False])
def test_a_damaged_folder_row_holds_nothing_and_the_file_is_checked_again(
    run: Run, tmp_path: Path, stat_kept: bool
) -> None:
    """The row of the folder where `import torch` found nothing, its time not a number (no run
    writes that), kept with the folder's stat or with none: read (no stat), it holds nothing and
    the file is checked again; a new look in the folder gives it a new row. The run neither stops
    nor says more than a run without the cache (it stopped with a ValueError both ways)."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    shutil.copy(projects / "utils.py", tmp_path / "utils.py")
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    fresh = run("--output-format", "json", "train.py")
    assert fresh[0] == EXIT_FOUND
    cache_file = _cache_file(tmp_path)
    data = json.loads(cache_file.read_text())
    folders = [row for row in data["read"] if row[1].startswith("folder:")]
    assert folders
    for row in folders:
        row[1] = "folder:not-a-time:" + row[1].split(":", 2)[2]
        row[2:] = _stat_now(row[0]) if stat_kept else [-1, -1, -1, -1]
    cache_file.write_text(json.dumps(data))
    assert run("--output-format", "json", "train.py") == fresh
    shutil.copy(projects / "train.py", tmp_path / "again.py")
    assert run("--output-format", "json", "train.py", "again.py")[0] == EXIT_FOUND, "a new look there"


def test_a_folder_where_imports_found_nothing_is_one_row_whatever_each_looked_for(
    run: Run, tmp_path: Path
) -> None:
    """train.py imports utils and other.py imports helpers, neither there: the table keeps one row
    for the folder, asking of both names, which both entries name. Once utils.py is made, train.py
    is checked again and reports (the row no longer holds for either)."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    write(tmp_path / "other.py", (projects / "train.py").read_text().replace("from utils", "from helpers"))
    age(*tmp_path.glob("*.py"))
    assert run("--output-format", "json", "other.py", "train.py")[:2] == (EXIT_OK, "[]\n")
    data = json.loads(_cache_file(tmp_path).read_text())
    folder_rows = [
        number for number, (key, said, *_) in enumerate(data["read"]) if said.startswith("folder:")
    ]
    in_the_folder = [n for n in folder_rows if data["read"][n][0] == str(tmp_path)]
    assert len(in_the_folder) == 1, data["read"]
    (row,) = in_the_folder
    said = data["read"][row][1]
    assert "helpers.py=0" in said and "utils.py=0" in said
    assert all(row in reads for _, reads in data["results"].values())
    assert run("--output-format", "json", "other.py", "train.py")[:2] == (EXIT_OK, "[]\n")
    shutil.copy(projects / "utils.py", tmp_path / "utils.py")
    found = run("--output-format", "json", "other.py", "train.py")
    assert found[0] == EXIT_FOUND and [f["filename"].rsplit("/", 1)[-1] for f in json.loads(found[1])] == [
        "train.py"
    ]


def test_a_folder_whose_stat_the_cache_trusts_is_read_again_once_a_module_is_made_in_it(
    run: Run, tmp_path: Path
) -> None:
    """train.py imports utils, which is not there: the folder where the import looked is a row of
    the table of reads, kept with the folder's stat. Making utils.py there moves that stat, so the
    next run looks in the folder again and checks train.py (whose own bytes and stat did not move)."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    shutil.copy(projects / "train.py", tmp_path / "train.py")
    age(tmp_path / "train.py")
    assert run("--output-format", "json", "train.py")[:2] == (EXIT_OK, "[]\n")
    trust_the_current_stats(tmp_path)  # as a cache written long after the folder was last changed
    assert run("--output-format", "json", "train.py") == (EXIT_OK, "[]\n", "")
    shutil.copy(projects / "utils.py", tmp_path / "utils.py")
    assert run("--output-format", "json", "train.py")[0] == EXIT_FOUND


def test_a_module_changed_just_before_the_cache_was_written_keeps_no_stat(run: Run, tmp_path: Path) -> None:
    """utils.py, which train.py's finding reads, was written just now: another write within the
    file system's timestamp granularity would leave its stat as it is, so its row keeps
    ``UNTRUSTED_STAT`` and the next run reads it again."""
    projects = REPO / "tests" / "analysis" / "projects" / "helper_keeps_the_graph"
    for name in ("train.py", "utils.py"):
        shutil.copy(projects / name, tmp_path / name)
    age(tmp_path / "train.py")
    first = run("--output-format", "json", "train.py")
    assert first[0] == EXIT_FOUND
    data = json.loads(_cache_file(tmp_path).read_text())
    (row,) = [stat for key, _, *stat in data["read"] if key == str(tmp_path / "utils.py")]
    assert row == list(UNTRUSTED_STAT)
    (tmp_path / "utils.py").write_text(
        "def smooth(state, factor=0.9):\n    return (state * factor).detach()\n"
    )
    assert run("--output-format", "json", "train.py")[:2] == (EXIT_OK, "[]\n")


def test_a_warm_run_says_of_a_notebook_what_the_cold_run_said(run: Run, tmp_path: Path) -> None:
    """The finding and its cell come from the cache: the notebook's bytes were swapped for others of
    the same size and time (their stat then written into the cache), which only a run that trusted
    the cache still reports on."""
    notebook = training_notebook(tmp_path / "train.ipynb")
    age(notebook)
    cold = run("--output-format", "json")
    assert cold[0] == EXIT_FOUND
    assert [item["cell"] for item in json.loads(cold[1])] == [2]
    swap_keeping_size_and_time(notebook, "")
    trust_the_current_stats(tmp_path)
    assert run("--output-format", "json") == cold
    assert run("--output-format", "json", "--no-cache")[0] == EXIT_ERROR, "the file is no notebook any more"


WARM_RUN_MODULES = """
import runpy, sys
sys.argv = ["errknow-ls", "check"]
try:
    runpy.run_module("errknow_ls", run_name="__main__")
finally:
    heavy = ("pydantic", "errknow_ls.kb", "errknow_ls.analysis.checker")
    print("loaded:", [name for name in heavy if name in sys.modules], file=sys.stderr)
"""


def test_a_warm_run_with_findings_loads_neither_checker_nor_records(tmp_path: Path) -> None:
    """Its findings name their rules' records, which the built-in records hold: nothing to load."""
    train = write(tmp_path / "train.py", DOUBLE)
    age(train)
    command = [sys.executable, "-c", WARM_RUN_MODULES]
    cold = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    warm = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert "EK001" in cold.stdout and "'errknow_ls.analysis.checker'" in cold.stderr
    assert (warm.stdout, warm.stderr) == (cold.stdout, "loaded: []\n")


def test_a_cached_finding_naming_an_unknown_record_still_warns(run: Run, tmp_path: Path) -> None:
    train = write(tmp_path / "train.py", DOUBLE)
    age(train)
    assert run()[0] == EXIT_FOUND
    cache_file = _cache_file(tmp_path)
    data = json.loads(cache_file.read_text())
    (digest,) = data["results"]
    entry = data["results"][digest]
    entry[0] = re.sub(r'"record":"[^"]+"', '"record":"nowhere/gone"', entry[0])
    cache_file.write_text(json.dumps(data))
    code, _, err = run()
    assert code == EXIT_FOUND
    assert err == "warning: EK001: record 'nowhere/gone' is not in the knowledge base\n"
