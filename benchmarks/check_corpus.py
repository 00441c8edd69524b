"""`errknow-ls check` on real training code, against ruff and CPython's ast.parse in the same run.

The corpus is the source of PyPI packages with training loops, fetched with
``pip download --no-deps`` into a temporary directory (never committed). Prints every finding
(each one a real bug or a false positive to look at), then wall times and ratios:

    python benchmarks/check_corpus.py [--packages NAME ...] [--keep DIR] [--repeat N]

Cold is the first run, with an empty cache (which it fills); warm is the same command again, every
file unchanged. ruff runs with --no-cache, and again with a cache of its own (warm) for reference.
Warm runs and ruff's are medians of N runs (default 5), interleaved so that a load that comes and
goes on a shared machine weighs on both; the cold run is run once (it is minutes, not seconds).

Target (issue 7): check <= 1.0x ruff --no-cache cold, <= 0.2x warm.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from pathlib import Path

PACKAGES = [
    "stable-baselines3",
    "pytorch-ignite",
    "opacus",
    "higher",
    "timm",
    "accelerate",
    "torchrl",
    "lightning",
    "transformers",
    "diffusers",
    "peft",
    "trl",
    "kornia",
    "pyro-ppl",
    "gpytorch",
    "torchgeo",
    "skorch",
    "torchmetrics",
    "pytorch-lightning",
]


def fetch(packages: list[str], into: Path) -> Path:
    wheels = into / "wheels"
    source = into / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    for package in packages:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(wheels), package],
            check=False,
            capture_output=True,
        )
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.endswith(".py"):
                    archive.extract(name, source / wheel.stem)
    return source


def timed(command: list[str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done


def parse_all(files: list[Path]) -> float:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            with contextlib.suppress(SyntaxError, ValueError):
                ast.parse(path.read_bytes())
    return time.perf_counter() - start


def main() -> int:
    # Installed packages run from compiled bytecode; a shell with PYTHONDONTWRITEBYTECODE would
    # make every errknow-ls process compile its modules again (tens of ms a start).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", default=PACKAGES)
    parser.add_argument("--keep", type=Path, help="use (or fill) this directory instead of a temp one")
    parser.add_argument("--repeat", type=int, default=5, help="runs per median (warm, ruff)")
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="errknow-corpus-"))
    caches = Path(tempfile.mkdtemp(prefix="errknow-corpus-caches-"))
    try:
        source = workdir / "src"
        if not source.is_dir():
            source = fetch(args.packages, workdir)
        files = sorted(source.rglob("*.py"))
        lines = sum(path.read_bytes().count(b"\n") for path in files)
        bindir = Path(sys.executable).parent
        errknow = [str(bindir / "errknow-ls"), "check", "--format", "json", "--exit-zero"]
        errknow += ["--cache-dir", str(caches / "errknow"), str(source)]
        ruff = [str(bindir / "ruff"), "check", "--select", "E9,F", "--exit-zero", "-q", str(source)]
        ruff_cold = [*ruff, "--no-cache"]
        ruff_warm = [*ruff, "--cache-dir", str(caches / "ruff")]
        timed(ruff_warm)  # fills ruff's cache
        ruff_times = [timed(ruff_cold)[0]]
        cold_time, cold = timed(errknow)
        parse_time = parse_all(files)
        warm_times: list[float] = []
        ruff_warm_times: list[float] = []
        identical = True
        for _ in range(args.repeat):
            seconds, warm = timed(errknow)
            warm_times.append(seconds)
            identical = identical and (warm.stdout, warm.stderr) == (cold.stdout, cold.stderr)
            ruff_times.append(timed(ruff_cold)[0])
            ruff_warm_times.append(timed(ruff_warm)[0])
        findings = json.loads(cold.stdout or "[]")
        for finding in findings:
            where = f"{finding['filename']}:{finding['location']['row']}:{finding['location']['column']}"
            print(f"{where}: {finding['code']} {finding['message']}")
        ruff_time = statistics.median(ruff_times)
        print(f"\ncorpus: {len(files)} files, {lines:,} lines ({', '.join(args.packages)})")
        print(f"findings: {len(findings)}; warm output identical to cold: {identical}")
        print(f"ruff check --select E9,F --no-cache      {ruff_time:7.2f} s   (median of {len(ruff_times)})")
        for label, seconds in (
            ("ast.parse of every file (in-process)", parse_time),
            ("errknow-ls check, cold (fills cache)", cold_time),
            (f"errknow-ls check, warm (median of {args.repeat})", statistics.median(warm_times)),
            (f"ruff check, its own cache (median of {args.repeat})", statistics.median(ruff_warm_times)),
        ):
            print(f"{label:41}{seconds:7.2f} s   {seconds / ruff_time:5.2f}x ruff --no-cache")
        warm_ratio = statistics.median(warm_times) / statistics.median(ruff_warm_times)
        print(f"errknow-ls warm / ruff warm: {warm_ratio:.2f}")
    finally:
        shutil.rmtree(caches, ignore_errors=True)
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
