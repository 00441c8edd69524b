"""The fix loop of ``check --fix``: overlaps, rounds, fixes that do not fix, fixes that break syntax."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from errknow_ls.analysis import CheckResult, check_source
from errknow_ls.cli import EXIT_ERROR, EXIT_OK, main
from errknow_ls.core import Applicability, Edit, Finding, Fix, Position, Severity, Span
from errknow_ls.core.edits import Offsets, shift
from errknow_ls.project import RuleSelection
from errknow_ls.runner import engine
from errknow_ls.runner.engine import FileJob
from errknow_ls.runner.fixing import MAX_ROUNDS, choose, fix_until_stable
from errknow_ls.runner.sourcefile import (
    CHANGED,
    SourceChanged,
    detect_newline,
    read_source_file,
    with_newline,
    write_source,
)
from tests.runner.test_check_cli import GRAD_FIXED, GRAD_THEN_BACKWARD, Run, write

SAFE, UNSAFE, DISPLAY = Applicability.SAFE, Applicability.UNSAFE, Applicability.DISPLAY_ONLY


def edit(line: int, start: int, end: int, content: str) -> Edit:
    return Edit(Span.of(line, start, line, end), content)


def finding(line: int, col: int, *fixes: Fix, code: str = "EK001") -> Finding:
    return Finding(
        code=code,
        name="double-backward",
        record_id="r",
        severity=Severity.ERROR,
        message="m",
        span=Span.of(line, col, line, col + 1),
        fixes=fixes,
    )


def fix(applicability: Applicability, *edits: Edit) -> Fix:
    return Fix("t", applicability, edits)


def test_choose_takes_applicable_fixes_and_skips_overlaps() -> None:
    text = "abcdef\n"
    first = finding(0, 0, fix(SAFE, edit(0, 0, 3, "X")))
    overlapping = finding(0, 2, fix(SAFE, edit(0, 2, 5, "Y")))
    unsafe = finding(0, 5, fix(UNSAFE, edit(0, 5, 6, "Z")))
    display = finding(0, 4, fix(DISPLAY, edit(0, 4, 4, "W")))
    assert choose(text, [first, overlapping, unsafe, display], unsafe=False).edits == [edit(0, 0, 3, "X")]
    chosen = choose(text, [first, overlapping, unsafe, display], unsafe=True)
    assert chosen.findings == [first, unsafe]


def test_identical_fixes_are_applied_once_and_fix_both() -> None:
    same = fix(SAFE, edit(0, 0, 0, "h = h.detach()\n"))
    chosen = choose("x\n", [finding(1, 0, same), finding(2, 0, same)], unsafe=False)
    assert len(chosen.edits) == 1
    assert len(chosen.findings) == 2


def test_offsets_follow_pythons_line_breaks_only() -> None:
    offsets = Offsets("a\r\nb\x0cc\nd")
    assert [offsets(Position(line, 0)) for line in range(4)] == [0, 3, 7, 8]
    assert offsets(Position(0, 99)) == 3, "past the end of a line is the start of the next"


def test_shift_moves_offsets_past_earlier_edits() -> None:
    text = "0123456789"
    assert shift(5, text, [edit(0, 0, 0, "ab")]) == 7
    assert shift(5, text, [edit(0, 1, 3, "")]) == 3
    assert shift(5, text, [edit(0, 5, 7, "xyz")]) == 5, "an edit that starts there does not move it"
    assert shift(5, text, [edit(0, 4, 6, "")]) is None, "an edit across it replaces it"
    assert shift(5, text, [edit(0, 6, 6, "z")]) == 5


def bad_words(text: str) -> tuple[list[Finding], list[str]]:
    """A toy check: each ``bad`` is a finding whose safe fix makes it ``good``."""
    offsets = Offsets(text)
    found = []
    for match in re.finditer("bad", text):
        line = max(i for i, start in enumerate(offsets.starts) if start <= match.start())
        col = match.start() - offsets.starts[line]
        found.append(finding(line, col, fix(SAFE, edit(line, col, col + 3, "good"))))
    return found, []


def test_fixes_apply_in_rounds_until_nothing_is_left() -> None:
    outcome = fix_until_stable("bad = bad\nbad\n", bad_words, unsafe=False)
    assert (outcome.text, outcome.fixed, outcome.findings, outcome.warnings) == (
        "good = good\ngood\n",
        3,
        [],
        [],
    )


def test_a_fix_that_leaves_its_finding_in_place_is_not_applied() -> None:
    def stubborn(text: str) -> tuple[list[Finding], list[str]]:
        """Flags the line ``target``; its fix inserts a line above, and the line is still there."""
        line = text.splitlines().index("target")
        return [finding(line, 0, fix(SAFE, edit(0, 0, 0, "guard\n")))], []

    outcome = fix_until_stable("x\ntarget\n", stubborn, unsafe=False)
    assert (outcome.text, outcome.fixed, len(outcome.findings)) == ("x\ntarget\n", 0, 1)
    assert outcome.warnings == ["2:1: EK001: the fix did not remove the finding, so it was not applied (t)"]


def test_a_fix_that_leaves_its_finding_in_place_gives_way_to_the_findings_next_fix() -> None:
    def two_ways(text: str) -> tuple[list[Finding], list[str]]:
        """Flags the line ``target`` until it reads ``done``: the preferred fix only inserts a line
        above it, the second rewrites it (applied in safe mode only when safe)."""
        if "target" not in text.splitlines():
            return [], []
        line = text.splitlines().index("target")
        guard = Fix("guard it", SAFE, (edit(0, 0, 0, "guard\n"),))
        rewrite = Fix("rewrite it", SAFE, (edit(line, 0, 6, "done"),))
        return [finding(line, 0, guard, rewrite)], []

    outcome = fix_until_stable("x\ntarget\n", two_ways, unsafe=False)
    assert (outcome.text, outcome.fixed, outcome.findings) == ("x\ndone\n", 1, [])
    assert outcome.warnings == [
        "2:1: EK001: the fix did not remove the finding, so it was not applied (guard it)"
    ]


def test_fixes_that_never_converge_stop_after_max_rounds() -> None:
    def endless(text: str) -> tuple[list[Finding], list[str]]:
        """Always one finding at the start, moved by its own fix's insertion before it."""
        return [finding(0, 0, fix(SAFE, edit(0, 0, 0, "#")))], []

    outcome = fix_until_stable("x\n", endless, unsafe=False)
    assert outcome.text == "#" * MAX_ROUNDS + "x\n"
    assert outcome.warnings == [f"fixes were still applicable after {MAX_ROUNDS} rounds; stopped there"]


def test_fixes_that_break_the_syntax_are_not_applied() -> None:
    def breaking(text: str) -> tuple[list[Finding], list[str]]:
        return [finding(0, 0, fix(SAFE, edit(0, 0, 1, "def (")))], []

    outcome = fix_until_stable("x = 1\n", breaking, unsafe=False)
    assert (outcome.text, outcome.fixed) == ("x = 1\n", 0)
    assert outcome.warnings == ["the fixes would introduce a syntax error; they were not applied"]


@pytest.mark.parametrize(
    ("text", "newline"),
    [("a\nb\r\n", "\n"), ("a\r\nb\n", "\r\n"), ("a\rb\n", "\r"), ("no newline", "\n"), ("", "\n")],
)
def test_the_first_line_break_decides(text: str, newline: str) -> None:
    assert detect_newline(text) == newline


def test_inserted_lines_take_the_files_line_break() -> None:
    assert with_newline("a\nb\r\nc", "\r\n") == "a\r\nb\r\nc"
    assert with_newline("a\nb", "\n") == "a\nb"


def test_internal_errors_of_the_checker_are_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def failing(text: str, **_: object) -> CheckResult:
        return CheckResult(
            [], ["internal error while checking main: KeyError: 'x'", "line 3: invalid syntax"]
        )

    monkeypatch.setattr(engine, "check_source", failing)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\nx.backward()\n", encoding="utf-8")  # read by the checker
    assert main(["check"]) == EXIT_OK
    assert capsys.readouterr().err.splitlines() == [
        "a.py: warning: internal error while checking main: KeyError: 'x'",
        "a.py: syntax error: line 3: invalid syntax",
    ]


def test_a_crash_of_the_checker_fails_that_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def crashing(text: str, **options: object) -> CheckResult:
        if "crash" in text:
            raise RecursionError("maximum recursion depth exceeded")
        return check_source(text, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "check_source", crashing)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("crash = 1\ncrash.backward()\n", encoding="utf-8")
    twice = "import torch\nw = torch.ones(2, requires_grad=True)\nloss = (w * w).sum()\nloss.backward()\n"
    (tmp_path / "b.py").write_text(twice + "loss.backward()\n", encoding="utf-8")
    assert main(["check"]) == EXIT_ERROR
    out, err = capsys.readouterr()
    assert err == "a.py: error: internal error: RecursionError: maximum recursion depth exceeded\n"
    assert out.startswith("b.py:")


def test_fix_after_a_form_feed_line(tmp_path: Path) -> None:
    text = (
        "import torch\nimport torch.nn as nn\n\x0c\nmodel = nn.Linear(4, 2)\n"
        "loss = model(torch.randn(3, 4)).sum() * 2\n"
        "grads = torch.autograd.grad(loss, list(model.parameters()))\nloss.backward()\n"
    )
    path = tmp_path / "ff.py"
    path.write_bytes(text.encode())
    result = engine.check_file(FileJob(path, RuleSelection(), fix=True))
    assert result.warnings == []
    assert path.read_text(encoding="utf-8") == text.replace(
        "parameters()))", "parameters()), retain_graph=True)"
    )
    assert check_source(path.read_text(encoding="utf-8")).findings == []


def test_a_read_only_file_is_not_written(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path / "a.py", GRAD_THEN_BACKWARD)
    path.chmod(0o444)
    code, out, err = run("--fix", "--no-cache")
    assert code == EXIT_ERROR
    assert err == "a.py: error: read-only (mode 0444): not written\n"
    assert out.startswith("a.py:8:")
    assert path.read_text(encoding="utf-8") == GRAD_THEN_BACKWARD


def test_a_hard_linked_file_is_written_only_when_asked(run: Run, tmp_path: Path) -> None:
    """Another name may be a package manager's cache or a backup: not reached unasked."""
    path = write(tmp_path / "src" / "a.py", GRAD_THEN_BACKWARD)
    other = tmp_path / "elsewhere.txt"
    other.hardlink_to(path)
    code, out, err = run("--fix", "--no-cache", "src")
    assert code == EXIT_ERROR
    assert err == (
        "src/a.py: error: has 1 other name (hard links), which may be another program's (a package "
        "cache, a backup): not written (--fix-hard-links rewrites it in place, under every name)\n"
    )
    assert out.startswith("src/a.py:8:")
    assert path.read_text(encoding="utf-8") == other.read_text(encoding="utf-8") == GRAD_THEN_BACKWARD


def test_a_hard_linked_file_is_fixed_under_every_name(run: Run, tmp_path: Path) -> None:
    path = write(tmp_path / "src" / "a.py", GRAD_THEN_BACKWARD)
    other = tmp_path / "elsewhere.txt"
    other.hardlink_to(path)
    assert run("--fix", "--fix-hard-links", "--no-cache", "src")[0] == EXIT_OK
    assert path.read_text(encoding="utf-8") == other.read_text(encoding="utf-8") == GRAD_FIXED
    assert path.stat().st_ino == other.stat().st_ino
    assert [p.name for p in path.parent.iterdir()] == ["a.py"], "no temporary file or journal is left"


def test_a_symlink_out_of_the_checked_tree_is_written_only_when_asked(run: Run, tmp_path: Path) -> None:
    outside = write(tmp_path / "outside" / "shared.py", GRAD_THEN_BACKWARD)
    link = tmp_path / "tree" / "link.py"
    link.parent.mkdir()
    link.symlink_to(outside)
    code, _, err = run("--fix", "--no-cache", "tree")
    assert code == EXIT_ERROR
    assert err == (
        f"tree/link.py: error: a symlink to {outside}, outside the checked paths: not written "
        "(--fix-symlink-targets writes it)\n"
    )
    assert outside.read_text(encoding="utf-8") == GRAD_THEN_BACKWARD
    assert run("--fix", "--no-cache", "--fix-symlink-targets", "tree")[0] == EXIT_OK
    assert outside.read_text(encoding="utf-8") == GRAD_FIXED
    assert link.is_symlink()


def test_a_symlink_inside_the_checked_tree_is_written_through(run: Run, tmp_path: Path) -> None:
    real = write(tmp_path / "tree" / "lib" / "real.py", GRAD_THEN_BACKWARD)
    (tmp_path / "tree" / "app").mkdir()
    (tmp_path / "tree" / "app" / "link.py").symlink_to(real)
    assert run("--fix", "--no-cache", "tree/app", "tree/lib")[0] == EXIT_OK
    assert real.read_text(encoding="utf-8") == GRAD_FIXED


@pytest.mark.parametrize("change", ["other bytes", "same size and time", "renamed over"])
def test_a_file_changed_after_it_was_read_is_not_written(tmp_path: Path, change: str) -> None:
    path = write(tmp_path / "a.py", GRAD_THEN_BACKWARD)
    source = read_source_file(path)
    users = GRAD_THEN_BACKWARD.replace("loss", "cost")
    if change == "other bytes":
        path.write_text(users + "# more\n", encoding="utf-8")
    elif change == "same size and time":
        info = path.stat()
        path.write_text(users, encoding="utf-8")
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    else:
        write(tmp_path / ".a.py.swp", users).replace(path)
    saved = path.read_bytes()
    with pytest.raises(SourceChanged, match=f"{CHANGED} .*: not written; run --fix again"):
        write_source(source, GRAD_FIXED)
    assert path.read_bytes() == saved
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]
