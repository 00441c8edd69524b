"""`errknow-ls check` on the real-code corpus of issue 13: what it finds, and how fast against ruff.

    python benchmarks/check_real.py [--corpus /work/corpus] [--json FILE] [--triage FILE] [--repeat N]

The corpus is the folder ``benchmarks/corpus/build.py`` rebuilds from the pinned list
(``benchmarks/corpus/repos.toml``): one folder per repository, ``owner+name``. Prints

- repositories, files and lines (the files ``check`` reads: the same discovery), the files CPython
  3.11 cannot parse, and the backward/grad call sites found with ``ast``: ``.backward(...)``
  method calls, ``torch.autograd.backward`` and ``torch.autograd.grad`` (under any import alias);
- every finding of one ``errknow-ls check --format json`` run over the whole corpus, by severity,
  by rule and one by one (repository, path:line, code, message);
- with ``--triage``, the findings the committed triage table does not list and the table rows
  the run no longer finds, so that a table can be held against a run;
- wall times, all in this run: the cold check (an empty cache, which it fills) against
  ``ruff check --select E9,F --no-cache`` on the same files (issue 17: within 3x), then the warm
  check (every file unchanged; target 0.2x). ruff and the warm check are medians of N runs
  (default 3), interleaved so that a load that comes and goes weighs on both;
- the floor of a cold check: CPython's ``ast.parse`` of what the checker parses in the candidate
  files (those with a word every finding needs; a notebook's code cells joined), on one core in
  this process, which a checker built on Python's ``ast`` cannot go under; and the same of every
  file ``check`` parses (the candidates and the files that import, whose imported helpers may
  backward).

``--json FILE`` writes the counts, the findings and the times. Nothing passes or fails.
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from errknow_ls.analysis.cells import CellProgram
from errknow_ls.analysis.prefilter import might_backward, might_find
from errknow_ls.project.discovery import Excluder, discover
from errknow_ls.runner.notebooks import is_notebook, parse_notebook
from errknow_ls.runner.sourcefile import SourceFileError

HERE = Path(__file__).resolve().parent
TRIAGE_ROW = re.compile(
    r"^\|\s*\d+\s*\|\s*(?P<repo>[^|]+?)\s*\|\s*`?(?P<path>[^|`]+?):(?P<line>\d+)`?\s*\|\s*(?P<code>EK\d+)"
)


@dataclass
class CallSites:
    backward_method: int = 0
    autograd_backward: int = 0
    autograd_grad: int = 0
    files_with_any: int = 0

    @property
    def total(self) -> int:
        return self.backward_method + self.autograd_backward + self.autograd_grad


@dataclass
class Corpus:
    repos: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    files: int = 0
    lines: int = 0
    unparsable: int = 0
    call_sites: CallSites = field(default_factory=CallSites)
    candidates: int = 0
    """Files the checker reads (the others lack every word a finding needs)."""
    parse_seconds: float = 0.0
    """``ast.parse`` of the candidates' Python (a notebook's code cells joined), one core."""
    importing: int = 0
    """The other files ``check`` parses: they import, and a helper of the project may backward."""
    importing_parse_seconds: float = 0.0
    """``ast.parse`` of those, one core."""


def dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def autograd_aliases(tree: ast.Module) -> dict[str, str]:
    """Local names bound to torch.autograd's ``grad``/``backward`` or to ``torch.autograd`` itself."""
    aliases: dict[str, str] = {"torch.autograd": "torch.autograd"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("torch.autograd", "torch"):
            for name in node.names:
                if node.module == "torch" and name.name == "autograd":
                    aliases[name.asname or name.name] = "torch.autograd"
                elif node.module == "torch.autograd" and name.name in ("grad", "backward"):
                    aliases[name.asname or name.name] = f"torch.autograd.{name.name}"
        elif isinstance(node, ast.Import):
            for name in node.names:
                if name.name == "torch.autograd" and name.asname:
                    aliases[name.asname] = "torch.autograd"
    return aliases


def count_call_sites(tree: ast.Module, sites: CallSites) -> None:
    aliases = autograd_aliases(tree)
    found = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        if name is not None:
            head, _, rest = name.partition(".")
            name = aliases.get(head, head) + (f".{rest}" if rest else "")
            name = aliases.get(name, name)
        if name in ("torch.autograd.grad", "autograd.grad"):
            sites.autograd_grad += 1
        elif name in ("torch.autograd.backward", "autograd.backward"):
            sites.autograd_backward += 1
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
            sites.backward_method += 1
        else:
            continue
        found += 1
    sites.files_with_any += found > 0


def survey(corpus: Path, listed: list[str]) -> Corpus:
    result = Corpus()
    present = {child.name for child in corpus.iterdir() if child.is_dir()}
    result.repos = [name for name in listed if name.replace("/", "+") in present]
    result.missing = [name for name in listed if name.replace("/", "+") not in present]
    for path in discover([corpus], Excluder()).files:
        source = path.read_bytes()
        result.files += 1
        result.lines += source.count(b"\n")
        if might_backward(source):
            result.candidates += 1
            result.parse_seconds += parse_time(path, source)
        elif might_find(source, follows_imports=not is_notebook(path)):
            result.importing += 1
            result.importing_parse_seconds += parse_time(path, source)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source)
        except (SyntaxError, ValueError):
            result.unparsable += 1
            continue
        count_call_sites(tree, result.call_sites)
    return result


def parse_time(path: Path, source: bytes) -> float:
    """Seconds CPython's parser takes on what the checker parses in ``path`` (0 when nothing)."""
    try:
        text = (
            CellProgram.join(parse_notebook(source.decode("utf-8")).sources()).text
            if is_notebook(path)
            else source
        )
    except (SourceFileError, UnicodeDecodeError):
        return 0.0
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError):
        pass
    return time.perf_counter() - start


def timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done


def repo_and_path(filename: str, corpus: Path) -> tuple[str, str]:
    relative = Path(filename).resolve().relative_to(corpus.resolve()).as_posix()
    folder, _, path = relative.partition("/")
    return folder.replace("+", "/", 1), path


def triage_rows(path: Path) -> set[tuple[str, str, int, str]]:
    rows = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        match = TRIAGE_ROW.match(line)
        if match:
            rows.add((match["repo"], match["path"], int(match["line"]), match["code"]))
    return rows


@dataclass
class Times:
    ruff_no_cache: float
    check_cold: float
    check_warm: float


def run_tools(corpus: Path, repeat: int) -> tuple[Times, subprocess.CompletedProcess[str]]:
    bindir = Path(sys.executable).parent
    cache = Path(tempfile.mkdtemp(prefix="errknow-real-cache-"))
    errknow = [str(bindir / "errknow-ls"), "check", "--format", "json", "--exit-zero"]
    errknow += ["--cache-dir", str(cache), str(corpus)]
    ruff = [str(bindir / "ruff"), "check", "--isolated", "--select", "E9,F", "--no-cache", "--exit-zero"]
    ruff += ["-q", "--extend-exclude", "*.ipynb", str(corpus)]
    try:
        ruff_times = [timed(ruff)[0]]
        cold_time, cold = timed(errknow)
        warm_times = []
        for _ in range(repeat):
            warm_times.append(timed(errknow)[0])
            ruff_times.append(timed(ruff)[0])
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return Times(statistics.median(ruff_times), cold_time, statistics.median(warm_times)), cold


@dataclass(frozen=True, order=True)
class Found:
    repo: str
    path: str
    line: int
    code: str
    column: int
    name: str
    severity: str
    message: str

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.repo, self.path, self.line, self.code)


def read_findings(stdout: str, corpus: Path) -> list[Found]:
    findings = []
    for finding in json.loads(stdout or "[]"):
        repo, path = repo_and_path(finding["filename"], corpus)
        location = finding["location"]
        rest = {key: finding[key] for key in ("code", "name", "severity", "message")}
        findings.append(Found(repo, path, location["row"], column=location["column"], **rest))
    return sorted(findings)


def print_corpus(corpus: Corpus, listed: int) -> None:
    sites = corpus.call_sites
    missing = f" (missing: {', '.join(corpus.missing)})" if corpus.missing else ""
    print(f"repositories: {len(corpus.repos)} of {listed} listed{missing}")
    print(f"files: {corpus.files:,}  lines: {corpus.lines:,}  not parsable by CPython: {corpus.unparsable}")
    print(
        f"call sites: {sites.total:,} ({sites.backward_method:,} .backward(), "
        f"{sites.autograd_backward:,} torch.autograd.backward, {sites.autograd_grad:,} torch.autograd.grad) "
        f"in {sites.files_with_any:,} files"
    )


def print_findings(findings: list[Found]) -> None:
    print(f"\nfindings: {len(findings)}")
    by_severity = collections.Counter(f.severity for f in findings)
    by_rule = collections.Counter(f"{f.code} {f.name}" for f in findings)
    print("  by severity: " + ", ".join(f"{k} {v}" for k, v in sorted(by_severity.items())))
    for rule, count in sorted(by_rule.items()):
        print(f"  {rule}: {count}")
    for f in findings:
        print(f"{f.repo}  {f.path}:{f.line}  {f.code} {f.message}")


def compare_with_triage(findings: list[Found], triage: Path) -> dict[str, list[tuple[str, str, int, str]]]:
    table = triage_rows(triage)
    found = {f.key for f in findings}
    comparison = {"not_in_table": sorted(found - table), "no_longer_found": sorted(table - found)}
    print(f"\ntriage table {triage}: {len(table)} rows")
    for label, rows in comparison.items():
        print(f"  {label.replace('_', ' ')}: {len(rows)}")
        for repo, path, line, code in rows:
            print(f"    {repo}  {path}:{line}  {code}")
    return comparison


def print_times(times: Times, repeat: int, corpus: Corpus) -> None:
    ruff = times.ruff_no_cache
    print(f"\n{'ruff check --select E9,F --no-cache':37} {ruff:7.2f} s   (median of {repeat + 1})")
    for label, seconds in (
        ("errknow-ls check, cold", times.check_cold),
        (f"errknow-ls check, warm (median of {repeat})", times.check_warm),
    ):
        print(f"{label:37} {seconds:7.2f} s   {seconds / ruff:5.2f}x ruff")
    floor = corpus.parse_seconds
    print(
        f"{'floor: ast.parse of the candidates':37} {floor:7.2f} s   {floor / ruff:5.2f}x ruff "
        f"({corpus.candidates:,} files, one core; the cold check is {times.check_cold / floor:.1f}x it)"
    )
    every = floor + corpus.importing_parse_seconds
    print(
        f"{'floor: ast.parse of every file parsed':37} {every:7.2f} s   {every / ruff:5.2f}x ruff "
        f"(the candidates and the {corpus.importing:,} that import; the cold check is "
        f"{times.check_cold / every:.1f}x it)"
    )


def main() -> int:
    # Installed packages run from compiled bytecode; a shell with PYTHONDONTWRITEBYTECODE would
    # make every errknow-ls process compile its modules again (tens of ms a start).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"), help="the built corpus")
    parser.add_argument("--list", type=Path, default=HERE / "corpus" / "repos.toml", help="the pinned list")
    parser.add_argument("--json", type=Path, help="write counts, findings and times here")
    parser.add_argument("--triage", type=Path, help="a triage table to hold the findings against")
    parser.add_argument("--repeat", type=int, default=3, help="warm runs (ruff runs one more)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a folder: build it with benchmarks/corpus/build.py")
    with args.list.open("rb") as handle:
        listed = [entry["name"] for entry in tomllib.load(handle)["repo"]]
    corpus = survey(args.corpus, listed)
    times, cold = run_tools(args.corpus, args.repeat)
    unreadable = [line for line in cold.stderr.splitlines() if ": error: " in line]
    if cold.returncode not in (0, 2) or not cold.stdout.lstrip().startswith("["):
        print(cold.stderr, file=sys.stderr)
        return cold.returncode or 1
    for line in unreadable:  # exit 2: some files could not be read (a Julia notebook); the rest stands
        print(f"not checked: {line}")
    findings = read_findings(cold.stdout, args.corpus)
    print(f"corpus: {args.corpus}")
    print_corpus(corpus, len(listed))
    print_findings(findings)
    comparison = compare_with_triage(findings, args.triage) if args.triage else {}
    print_times(times, args.repeat, corpus)
    if args.json:
        report = {
            "corpus": asdict(corpus) | {"call_sites_total": corpus.call_sites.total},
            "findings": [asdict(f) for f in findings],
            "triage": comparison,
            "seconds": asdict(times),
        }
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
