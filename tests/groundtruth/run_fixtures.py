"""Run fixture files under torch and report what each run raised, and where, as JSON.

    python tests/groundtruth/run_fixtures.py FILE... > results.json

Every file runs once as ``__main__`` in a fresh namespace (the "<module>" run); then every
top-level ``case_*`` function it defines is called on its own, in source order. A run records
whether it raised, the exception's type and message, and the traceback frames that lie in the
fixture file itself. torch is imported once, before the first file; warnings and the fixtures'
own output are swallowed so that stdout carries only the JSON.

Tests call :func:`run_in_subprocess`, which runs this script with a given interpreter and
parses its answer, so the test process never imports torch.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import io
import json
import random
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

MODULE_RUN = "<module>"
CASE_PREFIX = "case_"
_OUTPUT_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class Frame:
    """A traceback frame inside the fixture file: the lines of the instruction that was running."""

    line: int
    end_line: int
    function: str


@dataclass(frozen=True, slots=True)
class Run:
    """One execution: the module body, or one ``case_*`` function called on its own."""

    path: str
    name: str
    raised: bool
    exc_type: str | None = None
    message: str | None = None
    frames: list[Frame] = field(default_factory=list)
    seconds: float = 0.0
    output: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Run:
        frames = [Frame(**frame) for frame in data.pop("frames")]
        return cls(frames=frames, **data)


@dataclass(frozen=True, slots=True)
class Report:
    torch_version: str
    seconds: float
    runs: list[Run]

    def by_key(self) -> dict[tuple[str, str], Run]:
        return {(run.path, run.name): run for run in self.runs}


class HarnessError(RuntimeError):
    """The harness itself failed (not a fixture): bad interpreter, crash, unreadable output."""


def run_paths(paths: Iterable[Path]) -> Report:
    """Run every file in this process (torch must be importable here); see the module docstring."""
    started = time.perf_counter()
    import torch  # noqa: PLC0415 (only the ground-truth runs need torch)

    _warm_up(torch)
    runs: list[Run] = []
    for path in paths:
        runs.extend(_run_file(Path(path).resolve(), torch))
    return Report(torch.__version__, time.perf_counter() - started, runs)


def run_in_subprocess(paths: Sequence[Path], python: str = sys.executable, timeout: float = 300.0) -> Report:
    """Run every file in one fresh ``python`` process and return its report."""
    command = [python, str(Path(__file__).resolve()), *(str(Path(p).resolve()) for p in paths)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarnessError(f"could not run {command[0]}: {exc}") from exc
    if done.returncode != 0:
        raise HarnessError(f"harness exited with {done.returncode}:\n{done.stderr[-4000:]}")
    try:
        data = json.loads(done.stdout)
        runs = [Run.from_json(run) for run in data["runs"]]
        return Report(data["torch_version"], data["seconds"], runs)
    except (ValueError, KeyError, TypeError) as exc:
        raise HarnessError(f"unreadable harness output: {exc}\n{done.stdout[:2000]}") from exc


def _warm_up(torch: Any) -> None:
    """Pay torch's one-off lazy costs (the first optimizer imports dynamo: ~1 s) before any fixture."""
    weight = torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.SGD([weight], lr=0.1)
    (weight * 2).sum().backward()
    optimizer.step()


def _run_file(path: Path, torch: Any) -> list[Run]:
    filename = str(path)
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": filename, "__builtins__": builtins}

    def module_body() -> None:
        exec(compile(path.read_text(encoding="utf-8"), filename, "exec"), namespace)

    module_run = _run_one(filename, MODULE_RUN, module_body, torch)
    if module_run.raised:
        return [module_run]
    runs = [module_run]
    for name, function in _cases(namespace, filename):
        runs.append(_run_one(filename, name, function, torch))
    return runs


def _cases(namespace: dict[str, Any], filename: str) -> list[tuple[str, Callable[[], object]]]:
    found = []
    for name, value in namespace.items():
        code = getattr(value, "__code__", None)
        if name.startswith(CASE_PREFIX) and code is not None and code.co_filename == filename:
            found.append((code.co_firstlineno, name, value))
    return [(name, function) for _, name, function in sorted(found)]


def _run_one(filename: str, name: str, body: Callable[[], object], torch: Any) -> Run:
    random.seed(0)
    torch.manual_seed(0)
    torch.set_grad_enabled(True)
    output = io.StringIO()
    started = time.perf_counter()
    try:
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stdout(output),
            contextlib.redirect_stderr(output),
        ):
            warnings.simplefilter("ignore")
            body()
    except (Exception, SystemExit) as exc:
        frames = [
            Frame(summary.lineno or 0, summary.end_lineno or summary.lineno or 0, summary.name)
            for summary in traceback.extract_tb(exc.__traceback__)
            if summary.filename == filename
        ]
        return Run(
            filename,
            name,
            raised=True,
            exc_type=type(exc).__name__,
            message=str(exc),
            frames=frames,
            seconds=time.perf_counter() - started,
            output=output.getvalue()[-_OUTPUT_LIMIT:],
        )
    seconds = time.perf_counter() - started
    return Run(filename, name, raised=False, seconds=seconds, output=output.getvalue()[-_OUTPUT_LIMIT:])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("paths", nargs="+", type=Path, help="fixture files to run")
    args = parser.parse_args(argv)
    report = run_paths(args.paths)
    json.dump(asdict(report), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
