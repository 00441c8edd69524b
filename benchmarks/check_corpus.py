"""`errknow-ls check` on real training code, against ruff and CPython's ast.parse in the same run.

The corpus is the source of PyPI packages with training loops, fetched with
``pip download --no-deps`` into a temporary directory (never committed). Prints every finding
(each one a real bug or a false positive to look at), then wall times and ratios:

    python benchmarks/check_corpus.py [--packages NAME ...] [--keep DIR]

Target (issue 7): check <= 1.0x ruff cold (a warm cache is not built yet).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import shutil
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="*", default=PACKAGES)
    parser.add_argument("--keep", type=Path, help="use (or fill) this directory instead of a temp one")
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="errknow-corpus-"))
    try:
        source = workdir / "src"
        if not source.is_dir():
            source = fetch(args.packages, workdir)
        files = sorted(source.rglob("*.py"))
        lines = sum(path.read_bytes().count(b"\n") for path in files)
        bindir = Path(sys.executable).parent
        errknow = [str(bindir / "errknow-ls"), "check", "--format", "json", "--exit-zero", str(source)]
        ruff = [
            str(bindir / "ruff"),
            "check",
            "--select",
            "E9,F",
            "--no-cache",
            "--exit-zero",
            "-q",
            str(source),
        ]
        ruff_time, _ = timed(ruff)
        cold_time, cold = timed(errknow)
        parse_time = parse_all(files)
        findings = json.loads(cold.stdout or "[]")
        for finding in findings:
            where = f"{finding['filename']}:{finding['location']['row']}:{finding['location']['column']}"
            print(f"{where}: {finding['code']} {finding['message']}")
        print(f"\ncorpus: {len(files)} files, {lines:,} lines ({', '.join(args.packages)})")
        print(f"findings: {len(findings)}")
        print(f"ruff check --select E9,F --no-cache  {ruff_time:7.2f} s")
        for label, seconds in (
            ("ast.parse of every file (in-process)", parse_time),
            ("errknow-ls check", cold_time),
        ):
            print(f"{label:37}{seconds:7.2f} s   {seconds / ruff_time:5.2f}x ruff")
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
