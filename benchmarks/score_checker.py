"""Score the checker on a labelled set of whole programs: recall per family, false positives, fixes.

    python benchmarks/score_checker.py [--programs DIR] [--references REFERENCES] [--no-fix] [--verbose]

DIR (default: tests/analysis/programs) holds ``buggy/*.py``, each with exactly one
``# error: [rule-name]`` label on the call that raises (EK001-EK004) or that passes
``retain_graph=True`` on every iteration (EK005), and ``clean/*.py``, which must get no finding.

Prints, from ``check_source``:
- recall per family: the labelled line found with the label's code;
- false positives: findings in clean programs, and findings on unlabelled lines of buggy ones.

Then, when the CLI has ``check`` and torch is importable (the fix stage; ``--no-fix`` skips it):
copies every buggy program to a temporary directory twice, runs ``errknow-ls check --fix
--unsafe-fixes`` on one set of copies and ``check --fix`` (safe fixes alone) on the other, runs
them under torch with the training harness (tests/groundtruth/train_check.py), and prints the share
of buggy programs that *train correctly* after each: they run clean, every parameter the optimizers
own receives a non-zero gradient, and, where REFERENCES/<name>.py (default
tests/analysis/program_references) holds a hand-written correct
version, the trained parameters equal the reference's after the same number of steps. Also: the
share whose only fix is a bare ``retain_graph=True``, the share offered no fix, and the safe fixes
that change what trains (a program changed by safe fixes alone that runs but fails those checks),
which must be 0. Nothing passes or fails: read the numbers.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from errknow_ls.analysis import check_source
from errknow_ls.analysis.registry import BY_NAME, RULES

if TYPE_CHECKING:
    from tests.groundtruth.train_check import Training

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PROGRAMS = ROOT / "tests" / "analysis" / "programs"
DEFAULT_REFERENCES = ROOT / "tests" / "analysis" / "program_references"
DEAD_END = BY_NAME["retain-graph-in-loop"].code
RAISING = tuple(rule.code for rule in RULES if rule.raises)
LABEL = re.compile(r"# error: \[(?P<rule>[a-z0-9-]+)\]")
BARE_RETAIN = re.compile(r"^\s*,?\s*retain_graph\s*=\s*True\s*,?\s*$")


@dataclass
class Scored:
    """One program: its label (buggy) and what the checker found, as (1-based line, code)."""

    path: Path
    buggy: bool
    label: tuple[int, str] | None
    found: set[tuple[int, str]] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"

    @property
    def hit(self) -> bool:
        return self.label is not None and self.label in self.found

    @property
    def extra(self) -> set[tuple[int, str]]:
        """Findings that are not the label: false positives."""
        return self.found - ({self.label} if self.label else set())


def read_label(path: Path) -> tuple[int, str] | None:
    with path.open("rb") as source:
        for token in tokenize.tokenize(source.readline):
            match = LABEL.match(token.string) if token.type == tokenize.COMMENT else None
            if match:
                return token.start[0], BY_NAME[match["rule"]].code
    return None


def score(path: Path, buggy: bool) -> Scored:
    result = check_source(path.read_text(encoding="utf-8"))
    found = {(f.span.start.line + 1, f.code) for f in result.findings}
    return Scored(path, buggy, read_label(path) if buggy else None, found, list(result.errors))


def describe(found: set[tuple[int, str]]) -> str:
    return ", ".join(f"{code}@{line}" for line, code in sorted(found)) or "nothing"


def print_recall(scored: list[Scored], verbose: bool) -> None:
    buggy = [s for s in scored if s.buggy]
    print("Recall (labelled line found with the label's code)")
    for rule in RULES:
        family = [s for s in buggy if s.label and s.label[1] == rule.code]
        if not family:
            continue  # a rule labelled elsewhere (saved-tensor reads: PyTorch's own tests)
        hits = sum(s.hit for s in family)
        share = hits / len(family) if family else float("nan")
        print(f"  {rule.code} {rule.name:<26} {hits:>3}/{len(family):<3} {share:6.1%}")
    raising = [s for s in buggy if s.label and s.label[1] in RAISING]
    hits = sum(s.hit for s in raising)
    overall = f"{RAISING[0]}-{RAISING[-1]} overall"
    print(f"  {overall:<31} {hits:>3}/{len(raising):<3} {hits / max(1, len(raising)):6.1%}")
    hits = sum(s.hit for s in buggy)
    print(f"  all families                    {hits:>3}/{len(buggy):<3} {hits / max(1, len(buggy)):6.1%}")
    misses = [s for s in buggy if not s.hit]
    if misses:
        print("  misses:")
        for s in misses:
            assert s.label is not None
            print(f"    {s.name}:{s.label[0]} {s.label[1]}: checker found {describe(s.found)}")
    if verbose:
        for s in buggy:
            print(f"    {'hit ' if s.hit else 'MISS'} {s.name} {s.label}")


def print_false_positives(scored: list[Scored]) -> None:
    clean = [s for s in scored if not s.buggy]
    flagged = [s for s in clean if s.found]
    stray = [s for s in scored if s.buggy and s.extra]
    print("False positives")
    findings = sum(len(s.found) for s in flagged)
    print(f"  clean programs with a finding: {len(flagged)}/{len(clean)} ({findings} findings)")
    for s in flagged:
        print(f"    {s.name}: {describe(s.found)}")
    print(f"  buggy programs with a finding off the label: {len(stray)}/{sum(s.buggy for s in scored)}")
    for s in stray:
        print(f"    {s.name}: {describe(s.extra)} (label {s.label})")
    broken = [s for s in scored if s.errors]
    for s in broken:
        print(f"  parse errors in {s.name}: {s.errors}")


def cli_has_check() -> list[str] | None:
    """The command that runs ``errknow-ls`` from this interpreter, if it has ``check``."""
    command = [sys.executable, "-c", "import sys; from errknow_ls.cli import main; sys.exit(main())"]
    done = subprocess.run([*command, "check", "--help"], capture_output=True, text=True, check=False)
    return command if done.returncode == 0 else None


def is_bare_retain(before: str, after: str) -> bool:
    """The fix only inserted ``retain_graph=True`` (with its comma) into existing calls."""
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    changes = [(tag, after[j1:j2]) for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal"]
    return bool(changes) and all(tag == "insert" and BARE_RETAIN.match(text) for tag, text in changes)


@dataclass
class FixOutcome:
    """One buggy program after one fix pass (safe fixes alone, or with unsafe ones)."""

    scored: Scored
    changed: bool
    bare_retain: bool
    left: set[tuple[int, str]]
    training: Training | None
    trouble: list[str]
    """Why the fixed program does not train correctly (empty: it does)."""

    @property
    def trains(self) -> bool:
        return self.changed and not self.trouble

    def notes(self) -> list[str]:
        notes = []
        if not self.changed:
            notes.append("no fix applied")
        if self.bare_retain:
            notes.append("bare retain_graph=True")
        if self.left:
            notes.append(f"still flagged: {describe(self.left)}")
        notes.extend(self.trouble)
        return notes


def reference_of(program: Scored, references: Path) -> Path:
    """The hand-written correct version of a buggy program: REFERENCES/<name>.py, else its clean
    twin ``clean/<name>_fixed.py`` (may not exist)."""
    written = references / program.path.name
    if written.is_file():
        return written
    return program.path.parent.parent / "clean" / f"{program.path.stem}_fixed.py"


def fix_pass(command: list[str], buggy: list[Scored], references: Path, unsafe: bool) -> list[FixOutcome]:
    """Copy every buggy program, fix the copies, and run them under the training harness."""
    from tests.groundtruth.train_check import problems  # noqa: PLC0415 (only the fix stage needs it)
    from tests.groundtruth.train_check import run_in_subprocess as train  # noqa: PLC0415 (likewise)

    flags = ["--fix", "--unsafe-fixes"] if unsafe else ["--fix"]
    with tempfile.TemporaryDirectory(prefix="errknow-score-") as tmp:
        copies = {s.name: Path(tmp).resolve() / s.path.name for s in buggy}
        for s in buggy:
            shutil.copyfile(s.path, copies[s.name])
        subprocess.run(
            [*command, "check", *flags, "--no-cache", "--exit-zero", tmp],
            capture_output=True,
            text=True,
            check=False,
        )
        written = {s.name: reference_of(s, references) for s in buggy}
        present = [path for path in written.values() if path.is_file()]
        trained = train([*copies.values(), *present])
        fixed_texts = {name: copy.read_text(encoding="utf-8") for name, copy in copies.items()}
    outcomes = []
    for s in buggy:
        before, after = s.path.read_text(encoding="utf-8"), fixed_texts[s.name]
        training = trained.get(str(copies[s.name]))
        expected = trained.get(str(written[s.name].resolve()))
        trouble = problems(training, expected) if training else ["not run"]
        outcomes.append(
            FixOutcome(
                scored=s,
                changed=before != after,
                bare_retain=is_bare_retain(before, after),
                left={(f.span.start.line + 1, f.code) for f in check_source(after).findings},
                training=training,
                trouble=trouble,
            )
        )
    return outcomes


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / max(1, whole):.1%})"


def print_fix_stage(scored: list[Scored], references: Path) -> None:
    print("Fixes (`errknow-ls check --fix [--unsafe-fixes]` on copies, then run under torch and watched)")
    command = cli_has_check()
    if command is None:
        print("  skipped: the CLI has no `check` command yet")
        return
    if importlib.util.find_spec("torch") is None:
        print(f"  skipped: torch is not importable by {sys.executable}")
        return
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    buggy = [s for s in scored if s.buggy and s.label]
    with_reference = sum(reference_of(s, references).is_file() for s in buggy)
    print(
        f"  {len(buggy)} buggy programs; trains = runs clean, every parameter the "
        "optimizers own receives a non-zero gradient, and (for the "
        f"{with_reference} with a hand-written reference: {references.name}/<name>.py, or the clean "
        "twin clean/<name>_fixed.py) the trained "
        "parameters equal the reference's"
    )
    unsafe = fix_pass(command, buggy, references, unsafe=True)
    safe = fix_pass(command, buggy, references, unsafe=False)
    trains = sum(o.trains for o in unsafe)
    print(f"  train correctly after --fix --unsafe-fixes: {share(trains, len(buggy))}")
    print(
        f"  train correctly after --fix (safe fixes alone): {share(sum(o.trains for o in safe), len(buggy))}"
    )
    bare = sum(o.bare_retain for o in unsafe)
    print(f"  whose only fix is a bare retain_graph=True: {share(bare, len(buggy))}")
    unfixed = sum(not o.changed for o in unsafe)
    print(f"  offered no fix (not counting suppression): {share(unfixed, len(buggy))}")
    wrong = [o for o in safe if o.changed and o.training is not None and not o.training.raised and o.trouble]
    print(f"  safe fixes that change what trains: {len(wrong)}")
    for title, outcomes in (("--unsafe-fixes", unsafe), ("safe only", safe)):
        for outcome in outcomes:
            notes = outcome.notes()
            if notes and (title == "--unsafe-fixes" or outcome.changed):
                print(f"    [{title}] {outcome.scored.name}: {'; '.join(notes)}")


def _selected(directory: Path, only: Sequence[str] | None) -> list[Path]:
    paths = sorted(directory.glob("*.py"))
    if not only:
        return paths
    return [path for path in paths if any(fnmatch.fnmatchcase(path.stem, pattern) for pattern in only)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--programs", type=Path, default=DEFAULT_PROGRAMS, help="directory with buggy/ and clean/"
    )
    parser.add_argument(
        "--references",
        type=Path,
        default=DEFAULT_REFERENCES,
        help="hand-written correct versions of buggy programs, by the same file name",
    )
    parser.add_argument("--no-fix", action="store_true", help="skip the fix-and-run stage")
    parser.add_argument("--verbose", action="store_true", help="list every buggy program")
    parser.add_argument(
        "--only",
        action="append",
        metavar="PATTERN",
        help="score only the programs whose name (without .py) matches this glob (repeatable)",
    )
    args = parser.parse_args(argv)
    scored = [score(path, buggy=True) for path in _selected(args.programs / "buggy", args.only)]
    scored += [score(path, buggy=False) for path in _selected(args.programs / "clean", args.only)]
    unlabelled = [s.name for s in scored if s.buggy and s.label is None]
    if unlabelled:
        print(f"buggy programs without a label (ignored): {unlabelled}")
        scored = [s for s in scored if not s.buggy or s.label is not None]
    print(
        f"{sum(s.buggy for s in scored)} buggy and {sum(not s.buggy for s in scored)} clean programs "
        f"in {args.programs}"
    )
    print_recall(scored, args.verbose)
    print_false_positives(scored)
    if not args.no_fix:
        print_fix_stage(scored, args.references)
    return 0


if __name__ == "__main__":
    sys.exit(main())
