"""``kill -9`` during ``errknow-ls check --fix``: every file is wholly old or wholly new, and the
temporary files a killed run leaves are removed by the next run. Another program writing a file
while ``--fix`` works on it (an editor's save, a writer rewriting it in place) never loses its edit."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from errknow_ls.runner.sourcefile import CHANGED, JOURNAL_SUFFIX, TEMP_TAG
from tests.reliability.campaign import size
from tests.support import REPO

FIXES = REPO / "tests" / "analysis" / "fixes"
CLI = str(Path(sys.executable).parent / "errknow-ls")
COPIES = 4
"""Each golden pair's input, this many times: over the pool threshold, so workers write too."""


def _originals() -> dict[str, bytes]:
    """File name -> bytes: every fix fixture's input, some with CRLF line endings, padded to a size
    where writing takes a while."""
    files = {}
    for copy in range(COPIES):
        for path in sorted(FIXES.glob("*.in.py")):
            data = path.read_bytes() + b"\n" + b"# padding\n" * 3_000
            if copy % 2:
                data = data.replace(b"\n", b"\r\n")
            files[f"{path.name.removesuffix('.in.py')}_{copy}.py"] = data
    return files


def _plant(tree: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (tree / name).write_bytes(data)


def _fix(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, "check", "--fix", "--exit-zero", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _temps(tree: Path) -> list[str]:
    return sorted(path.name for path in tree.iterdir() if TEMP_TAG in path.name)


def test_kill_9_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    originals = _originals()
    expected = tmp_path / "expected"
    expected.mkdir()
    _plant(expected, originals)
    done = _fix(expected)
    assert done.returncode == 0, done.stderr
    fixed = {name: (expected / name).read_bytes() for name in originals}
    assert sum(fixed[name] != originals[name] for name in originals) >= len(originals) // 2

    tree = tmp_path / "tree"
    tree.mkdir()
    rng = random.Random(8)
    outcomes = {"old": 0, "new": 0, "temps": 0}
    for _ in range(size(ci=3, long=200)):
        _plant(tree, originals)
        # Its own session, so that the whole run (the pool's workers too) dies at once, as on a crash.
        run = subprocess.Popen(
            [CLI, "check", "--fix", "--exit-zero", "."],
            cwd=tree,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            run.wait(timeout=rng.uniform(0.3, 2.5))  # the random moment of the crash
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
        for name in originals:
            data = (tree / name).read_bytes()
            assert data in (originals[name], fixed[name]), (
                f"{name} is neither the original nor the fixed file"
            )
            outcomes["old" if data == originals[name] and data != fixed[name] else "new"] += 1
        outcomes["temps"] += len(_temps(tree))
        finished = _fix(tree)
        assert finished.returncode == 0, finished.stderr
        assert {name: (tree / name).read_bytes() for name in originals} == fixed
        assert _temps(tree) == []
    print(f"after the kills: {outcomes}")
    assert outcomes["old"] and outcomes["new"]


def test_the_next_run_removes_a_killed_runs_temporary_files(tmp_path: Path) -> None:
    source = (FIXES / "ek002_loss_before_loop.in.py").read_bytes()
    (tmp_path / "a.py").write_bytes(source)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    stale = tmp_path / f".a.py.{TEMP_TAG}-{int(dead.stdout)}-x1y2z3.tmp"
    stale.write_bytes(source[:10])
    live = tmp_path / f".a.py.{TEMP_TAG}-{os.getpid()}-a1b2c3.tmp"  # a run still writing: left alone
    live.write_bytes(source[:10])
    unrelated = tmp_path / ".a.py.swp.tmp"
    unrelated.write_bytes(b"editor")
    done = _fix(tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"{stale.name}: removed, a temporary file of an interrupted --fix run" in done.stderr
    assert (stale.exists(), live.exists(), unrelated.exists()) == (False, True, True)
    assert (tmp_path / "a.py").read_bytes() == (FIXES / "ek002_loss_before_loop.out.py").read_bytes()


def test_checking_without_fix_removes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes((FIXES / "ek001_backward_twice.in.py").read_bytes())
    stale = tmp_path / f".a.py.{TEMP_TAG}-999999999-x1y2z3.tmp"
    stale.write_bytes(b"partial")
    done = subprocess.run([CLI, "check", "."], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    assert stale.exists()


SAFE_FIX = FIXES / "ek002_loss_before_loop.in.py"
Expected = dict[str, tuple[bytes, bytes]]
"""File name -> the user's version, and that version as --fix leaves it."""
RACED_FILES = 6
"""Files in a raced tree: enough that a run's reads and writes spread over a while."""


def _users_version(index: int) -> bytes:
    """What the user saves meanwhile: still buggy (so a fixed copy differs), padded past one write."""
    return SAFE_FIX.read_bytes() + f"# the user's edit {index}\n".encode() + b"# more text\n" * 8_000


def _race_outcome(tree: Path, expected: Expected) -> dict[str, int]:
    """Each file is the user's version, or that version fixed; anything else is a lost or torn edit."""
    outcome = {"user's": 0, "fixed": 0}
    for name, (users, fixed) in expected.items():
        data = (tree / name).read_bytes()
        assert data in (users, fixed), f"{name}: the user's edit was lost ({len(data)} bytes)"
        outcome["fixed" if data == fixed else "user's"] += 1
    return outcome


def _raced_tree(tmp_path: Path) -> tuple[Path, Expected]:
    """A tree of files to fix and, per name, the user's version and that version as --fix leaves it."""
    reference = tmp_path / "reference"
    reference.mkdir()
    for index in range(RACED_FILES):
        (reference / f"m{index}.py").write_bytes(_users_version(index))
    done = _fix(reference)
    assert done.returncode == 0, done.stderr
    expected = {
        f"m{i}.py": (_users_version(i), (reference / f"m{i}.py").read_bytes()) for i in range(RACED_FILES)
    }
    assert all(users != fixed for users, fixed in expected.values())
    tree = tmp_path / "tree"
    tree.mkdir()
    return tree, expected


def _start_fix(tree: Path) -> subprocess.Popen[str]:
    original = SAFE_FIX.read_bytes() + b"# padding\n" * 8_000
    for index in range(RACED_FILES):
        (tree / f"m{index}.py").write_bytes(original)
    return subprocess.Popen(
        [CLI, "check", "--fix", "--exit-zero", "--no-cache", "."],
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(run: subprocess.Popen[str]) -> tuple[int, str]:
    _, stderr = run.communicate(timeout=300)
    assert "Traceback" not in stderr, stderr
    return run.returncode, stderr


Interference = Callable[[subprocess.Popen[str], Path, Expected, random.Random], None]


def _race(tmp_path: Path, seed: int, interfere: Interference) -> dict[str, int]:
    """Runs of --fix, each with another program writing the files meanwhile; what became of them."""
    tree, expected = _raced_tree(tmp_path)
    rng = random.Random(seed)
    totals = {"user's": 0, "fixed": 0, "skipped": 0}
    for _ in range(size(ci=3, long=100)):
        run = _start_fix(tree)
        interfere(run, tree, expected, rng)
        code, stderr = _finish(run)
        skipped = stderr.count(CHANGED) + stderr.count("changed while it was read")
        assert code == (2 if skipped else 0), stderr
        totals["skipped"] += skipped
        for key, count in _race_outcome(tree, expected).items():
            totals[key] += count
    return totals


def _save_as_an_editor_does(
    run: subprocess.Popen[str], tree: Path, expected: Expected, rng: random.Random
) -> None:
    """At a random moment, each file is saved to a temporary file that is renamed over it."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        run.wait(timeout=rng.uniform(0.2, 1.5))
    for name, (users, _) in expected.items():
        temp = tree / f".{name}.swp"
        temp.write_bytes(users)
        temp.replace(tree / name)


def test_an_editors_save_during_fix_is_never_lost(tmp_path: Path) -> None:
    print(f"editor saves during --fix: {_race(tmp_path, 14, _save_as_an_editor_does)}")


def _rewrite_in_place(path: Path, data: bytes, stop: threading.Event) -> None:
    """Truncate and rewrite ``path`` through the same inode, in small writes, until told to stop."""
    while True:
        with path.open("r+b") as handle:
            handle.truncate(0)
            for start in range(0, len(data), 4096):
                handle.write(data[start : start + 4096])
                handle.flush()
        if stop.is_set():
            return


def _rewrite_for_a_while(
    run: subprocess.Popen[str], tree: Path, expected: Expected, rng: random.Random
) -> None:
    """From a random moment to another, a writer per file rewrites it in place over and over."""
    stop = threading.Event()
    with contextlib.suppress(subprocess.TimeoutExpired):
        run.wait(timeout=rng.uniform(0.0, 1.0))
    writers = [
        threading.Thread(target=_rewrite_in_place, args=(tree / name, users, stop))
        for name, (users, _) in expected.items()
    ]
    for writer in writers:
        writer.start()
    with contextlib.suppress(subprocess.TimeoutExpired):
        run.wait(timeout=rng.uniform(0.0, 1.0))
    stop.set()
    for writer in writers:
        writer.join()


def test_a_file_rewritten_in_place_during_fix_is_never_torn(tmp_path: Path) -> None:
    print(f"in-place rewrites during --fix: {_race(tmp_path, 41, _rewrite_for_a_while)}")


# ------------------------------------------------------------------ hard links, rewritten in place


def _linked_tree(tree: Path, files: dict[str, bytes]) -> Path:
    """``files`` in ``tree``, each with a second name (a hard link) in ``tree/../links``."""
    links = tree.parent / "links"
    links.mkdir(exist_ok=True)
    for name, data in files.items():
        (tree / name).unlink(missing_ok=True)
        (links / name).unlink(missing_ok=True)
        (tree / name).write_bytes(data)
        (links / name).hardlink_to(tree / name)
    return links


def _journals(tree: Path) -> list[str]:
    return sorted(path.name for path in tree.iterdir() if path.name.endswith(JOURNAL_SUFFIX))


def _until_gone(group: int) -> None:
    """Wait until every process of the killed run's group has ended: a worker killed inside an
    ``fsync`` lives until the call returns, and a run started meanwhile finds its journal alive
    (and leaves that file to it, exit 2: ``test_a_file_another_run_is_rewriting_in_place_is_not_written``)."""
    for _ in range(600):
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        if all(_zombie_or_gone(pid) for pid in _group_members(group)):
            return
        time.sleep(0.05)
    raise AssertionError(f"the killed run's processes (group {group}) are still alive after 30 s")


def _group_members(group: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if len(fields) > 3 and int(fields[2]) == group:
                members.append(int(entry.name))
    return members


def _zombie_or_gone(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[:1] == ["Z"]
    except OSError:
        return True


def test_kill_9_during_the_rewrite_of_hard_linked_files_is_completed_by_the_next_run(tmp_path: Path) -> None:
    """``--fix-hard-links`` rewrites in place (no rename keeps several names): after random kills
    every file is old, new, or part-way with its journal beside it; the next run completes each
    part-way file from its journal, under every name, and leaves nothing behind."""
    originals = _originals()
    expected = tmp_path / "expected"
    expected.mkdir()
    _plant(expected, originals)
    assert _fix(expected).returncode == 0
    fixed = {name: (expected / name).read_bytes() for name in originals}
    tree = tmp_path / "tree"
    tree.mkdir()
    rng = random.Random(9)
    outcomes = {"old": 0, "new": 0, "part-way": 0, "journals": 0}
    for _ in range(size(ci=3, long=200)):
        links = _linked_tree(tree, originals)
        run = subprocess.Popen(
            [CLI, "check", "--fix", "--fix-hard-links", "--exit-zero", "."],
            cwd=tree,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            run.wait(timeout=rng.uniform(0.3, 2.5))
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
            _until_gone(run.pid)
        journals = _journals(tree)
        outcomes["journals"] += len(journals)
        for name in originals:
            data = (tree / name).read_bytes()
            if data not in (originals[name], fixed[name]):
                assert any(j.startswith(f".{name}.") for j in journals), f"{name} is torn, with no journal"
                outcomes["part-way"] += 1
            else:
                outcomes["old" if data == originals[name] and data != fixed[name] else "new"] += 1
        finished = subprocess.run(
            [CLI, "check", "--fix", "--fix-hard-links", "--exit-zero", "."],
            cwd=tree,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert finished.returncode == 0, finished.stderr
        assert {name: (tree / name).read_bytes() for name in originals} == fixed
        assert {name: (links / name).read_bytes() for name in originals} == fixed
        assert _temps(tree) == []
    print(f"after the kills: {outcomes}")
    assert outcomes["old"] and outcomes["new"]


STOPPED_PART_WAY = """\
import os, sys
from pathlib import Path
from errknow_ls.runner.sourcefile import _write_journal
target, new = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes()
_write_journal(target, target.read_bytes(), new)
fd = os.open(target, os.O_WRONLY)
os.write(fd, new[: int(sys.argv[3])])
os._exit(9)  # as a kill -9 would: the journal stays
"""


def _linked_file(tmp_path: Path, old: bytes, new: bytes) -> tuple[Path, Path, Path]:
    """``tree/a.py`` holding ``old`` with a second name outside the tree (a hard link), and
    ``new`` in a file of its own: the file's two names, and where the fixed text is."""
    path = tmp_path / "tree" / "a.py"
    path.parent.mkdir()
    path.write_bytes(old)
    other = tmp_path / "a-backup.py"
    other.hardlink_to(path)
    fixed = tmp_path / "fixed.py"
    fixed.write_bytes(new)
    return path, other, fixed


def _stopped_part_way(tmp_path: Path, written: int) -> tuple[Path, Path, bytes, bytes]:
    """A hard-linked file that a --fix-hard-links run was killed in the middle of rewriting (by our
    own journaling code, stopped after ``written`` bytes); its two names, old and fixed texts."""
    old = (FIXES / "ek002_loss_before_loop.in.py").read_bytes()
    new = (FIXES / "ek002_loss_before_loop.out.py").read_bytes()
    path, other, fixed = _linked_file(tmp_path, old, new)
    killed = subprocess.run(
        [sys.executable, "-c", STOPPED_PART_WAY, str(path), str(fixed), str(written)], check=False
    )
    assert killed.returncode == 9
    return path, other, old, new


def test_a_rewrite_stopped_part_way_is_completed_from_its_journal(tmp_path: Path) -> None:
    path, other, old, new = _stopped_part_way(tmp_path, 500)
    torn = path.read_bytes()
    assert torn not in (old, new) and torn == new[:500] + old[500:]
    done = _fix_linked(path.parent)
    assert done.returncode == 0, done.stderr
    assert f"{path}: an interrupted --fix run had rewritten it part-way: completed from its journal" in (
        done.stderr
    )
    assert path.read_bytes() == other.read_bytes() == new
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.py"]


STILL_WRITING = """\
import os, sys, time
from pathlib import Path
from errknow_ls.runner.sourcefile import _write_journal
target, new = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes()
_write_journal(target, target.read_bytes(), new)
fd = os.open(target, os.O_WRONLY)
os.write(fd, new[: int(sys.argv[3])])
print("part-way", flush=True)
time.sleep(300)  # alive, as a run still writing (or a killed one not yet gone) is
"""


def test_a_file_another_run_is_rewriting_in_place_is_not_written(tmp_path: Path) -> None:
    """A run that finds a file part-way through another run's rewrite in place (that run's journal
    beside it, its process alive) would fix the torn text it read and write it over: the journal
    could then neither complete nor undo it. It is left as it is, said, and exit 2; once the other
    run is gone, the next run completes it from the journal."""
    one = (FIXES / "ek002_loss_before_loop.in.py").read_bytes()
    definitions, main = one.split(b"\nif __name__ == ")
    again = definitions.replace(b"def train(", b"def train_again(")
    # A second finding, past the tear, on a path the tear does not end: `train_again` runs before
    # the torn `train` (whose broken name would end the script's run there).
    calls = main.replace(b"print(train(", b"print(train_again(") + main[main.index(b"    print(train(") :]
    old = definitions + b"\n" + again + b"\nif __name__ == " + calls
    expected = tmp_path / "expected"
    expected.mkdir()
    _plant(expected, {"a.py": old})
    assert _fix(expected).returncode == 0
    new = (expected / "a.py").read_bytes()
    path, other, fixed = _linked_file(tmp_path, old, new)
    written = next(i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b) + 1
    writer = subprocess.Popen(
        [sys.executable, "-c", STILL_WRITING, str(path), str(fixed), str(written)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "part-way\n"
        torn = path.read_bytes()
        assert torn == new[:written] + old[written:] and torn != old
        done = _fix_linked(path.parent)
        assert done.returncode == 2, done.stderr
        assert "another --fix run is rewriting it in place" in done.stderr
        assert path.read_bytes() == other.read_bytes() == torn
    finally:
        writer.kill()
        writer.communicate()
    done = _fix_linked(path.parent)
    assert done.returncode == 0, done.stderr
    assert "completed from its journal" in done.stderr
    assert path.read_bytes() == other.read_bytes() == new
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.py"]


CUT_IN_ITS_JOURNAL = """\
import sys
from pathlib import Path
from errknow_ls.runner.sourcefile import _write_journal
target, new, cut = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes(), int(sys.argv[3])
journal = _write_journal(target, target.read_bytes(), new)
journal.write_bytes(journal.read_bytes()[:-cut])  # as a kill while the journal was written leaves it
"""


def test_a_journal_cut_short_in_its_new_text_is_never_written_over_the_file(tmp_path: Path) -> None:
    """A run killed while it wrote the journal (before the file's first byte) leaves it cut
    anywhere, in the new text too. Completed from, it wrote that cut text over the file: a file
    cut short (the long campaign, twice). The journal now holds the sizes and a digest: a cut one
    is removed, and the untouched file is fixed whole."""
    old = (FIXES / "ek002_loss_before_loop.in.py").read_bytes()
    new = (FIXES / "ek002_loss_before_loop.out.py").read_bytes()
    path, other, fixed = _linked_file(tmp_path, old, new)
    cut = [sys.executable, "-c", CUT_IN_ITS_JOURNAL, str(path), str(fixed), "40"]
    made = subprocess.run(cut, check=False)
    assert made.returncode == 0
    assert len(_journals(path.parent)) == 1 and path.read_bytes() == old
    done = _fix_linked(path.parent)
    assert "removed, an unfinished journal of an interrupted --fix run" in done.stderr
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == other.read_bytes() == new
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.py"]


def test_a_file_changed_after_the_kill_is_left_with_its_journal(tmp_path: Path) -> None:
    """The user mended or rewrote the file meanwhile: neither it nor the journal is touched."""
    path, other, _, _ = _stopped_part_way(tmp_path, 500)
    mended = b"import torch\n# mended by hand\n"
    with path.open("r+b") as handle:  # in place, as most editors save a hard-linked file
        handle.truncate(0)
        handle.write(mended)
    done = _fix_linked(path.parent)
    (journal,) = _journals(path.parent)
    assert f"{journal}: the journal of an interrupted --fix run" in done.stderr.replace(f"{path.parent}/", "")
    assert "was changed since: kept, the file left as it is" in done.stderr
    assert path.read_bytes() == other.read_bytes() == mended


def _fix_linked(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, "check", "--fix", "--fix-hard-links", "--no-cache", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
