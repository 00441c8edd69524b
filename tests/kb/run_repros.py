"""Run the records' reproductions under torch and report what each variant raised, with and without
each fix, as JSON.

    python tests/kb/run_repros.py records/repro/*.py > report.json

A reproduction (``records/repro/<slug>.py``, for the record ``pytorch/<slug>``) defines
``variant_*(fix=None)`` functions, each a small program that raises the record's error, and a
``FIXES`` dict from a record field path (``workarounds.0``, ``dead_ends.1``) to the ``fix`` name
that applies that workaround or dead end, and ``APPLIES``, from a fix name to the variants that
fix is meant for (a fix it does not name is meant for every variant). Every variant runs once
plainly, then once with each fix meant for it; a run records the messages of the exception and of
its causes, outermost first. A workaround's measured success rate is the share of the variants it
is meant for that run clean with it; a dead end's fail rate is the share that still raise (a
variant may check its own result and raise where a fix only hides the error).

Like tests/groundtruth/run_fixtures.py, torch is imported once and tests call
:func:`run_in_subprocess`, so the test process never imports torch.
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
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

VARIANT_PREFIX = "variant_"
_OUTPUT_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class Run:
    """One call of one variant, plainly (``fix`` None) or with one fix applied."""

    variant: str
    fix: str | None
    raised: bool
    messages: list[str] = field(default_factory=list)
    """``Type: message`` of the exception, then of its cause or context, and so on."""
    seconds: float = 0.0
    output: str = ""


@dataclass(frozen=True, slots=True)
class Repro:
    path: str
    record: str
    fixes: dict[str, str]
    runs: list[Run]
    error: str | None = None
    """Set when the file itself could not be run (no variants, a crash at import)."""
    applies: dict[str, list[str]] = field(default_factory=dict)
    """Fix name -> the variants it is meant for; a fix not named is meant for every variant."""

    def plain(self) -> list[Run]:
        return [run for run in self.runs if run.fix is None]

    def with_fix(self, fix: str) -> list[Run]:
        return [run for run in self.runs if run.fix == fix]

    def measured(self, claim: str) -> tuple[int, int] | None:
        """(variants that ran clean with the fix for ``claim``, variants it is meant for), or None if
        not measured."""
        fix = self.fixes.get(claim)
        if fix is None:
            return None
        runs = self.with_fix(fix)
        return sum(not run.raised for run in runs), len(runs)


@dataclass(frozen=True, slots=True)
class Report:
    torch_version: str
    seconds: float
    repros: list[Repro]

    def by_record(self) -> dict[str, Repro]:
        return {repro.record: repro for repro in self.repros}


class HarnessError(RuntimeError):
    """The harness itself failed: bad interpreter, crash, unreadable output."""


def record_id(path: Path) -> str:
    return f"pytorch/{path.stem}"


def run_paths(paths: Iterable[Path]) -> Report:
    started = time.perf_counter()
    import torch  # noqa: PLC0415 (only the ground-truth runs need torch)

    repros = [_run_file(Path(path).resolve(), torch) for path in paths]
    return Report(torch.__version__, time.perf_counter() - started, repros)


def run_in_subprocess(paths: Sequence[Path], python: str = sys.executable, timeout: float = 300.0) -> Report:
    command = [python, str(Path(__file__).resolve()), *(str(Path(p).resolve()) for p in paths)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HarnessError(f"could not run {command[0]}: {exc}") from exc
    if done.returncode != 0:
        raise HarnessError(f"harness exited with {done.returncode}:\n{done.stderr[-4000:]}")
    try:
        return report_from_json(json.loads(done.stdout))
    except (ValueError, KeyError, TypeError) as exc:
        raise HarnessError(f"unreadable harness output: {exc}\n{done.stdout[:2000]}") from exc


def report_from_json(data: dict[str, Any]) -> Report:
    repros = []
    for item in data["repros"]:
        runs = [Run(**run) for run in item.pop("runs")]
        repros.append(Repro(runs=runs, **item))
    return Report(data["torch_version"], data["seconds"], repros)


def _variants(namespace: dict[str, Any], filename: str) -> list[tuple[str, Callable[..., object]]]:
    found = []
    for name, value in namespace.items():
        code = getattr(value, "__code__", None)
        if name.startswith(VARIANT_PREFIX) and code is not None and code.co_filename == filename:
            found.append((code.co_firstlineno, name, value))
    return [(name, function) for _, name, function in sorted(found)]


def _run_file(path: Path, torch: Any) -> Repro:
    filename = str(path)
    namespace: dict[str, Any] = {"__name__": "errknow_repro", "__file__": filename, "__builtins__": builtins}
    try:
        exec(compile(path.read_text(encoding="utf-8"), filename, "exec"), namespace)
    except Exception as exc:
        return Repro(filename, record_id(path), {}, [], error=f"{type(exc).__name__}: {exc}")
    fixes = dict(namespace.get("FIXES", {}))
    applies = {fix: list(names) for fix, names in namespace.get("APPLIES", {}).items()}
    variants = _variants(namespace, filename)
    if not variants:
        return Repro(filename, record_id(path), fixes, [], error="defines no variant_* function")
    unknown = [
        f"{fix}: {name}" for fix, names in applies.items() for name in names if name not in dict(variants)
    ]
    unknown += [f"{fix}: not a fix in FIXES" for fix in applies if fix not in fixes.values()]
    if unknown:
        return Repro(filename, record_id(path), fixes, [], error=f"APPLIES names {unknown}", applies=applies)
    runs = [_run_one(name, function, None, torch) for name, function in variants]
    for fix in dict.fromkeys(fixes.values()):
        meant = applies.get(fix)
        runs += [
            _run_one(name, function, fix, torch)
            for name, function in variants
            if meant is None or name in meant
        ]
    return Repro(filename, record_id(path), fixes, runs, applies=applies)


def exception_name(kind: type[BaseException]) -> str:
    """The exception's name as Python's traceback prints it (``_pickle.UnpicklingError``)."""
    module = kind.__module__
    return kind.__qualname__ if module in {"builtins", "__main__"} else f"{module}.{kind.__qualname__}"


def _chain(exc: BaseException) -> list[str]:
    messages = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        messages.append(f"{exception_name(type(current))}: {current}")
        # As Python prints a chain: a cause always, a context unless `raise ... from None` hid it.
        if current.__cause__ is not None:
            current = current.__cause__
        else:
            current = None if current.__suppress_context__ else current.__context__
    return messages


def _run_one(name: str, variant: Callable[..., object], fix: str | None, torch: Any) -> Run:
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
            variant(fix=fix)
    except (Exception, SystemExit) as exc:
        seconds = time.perf_counter() - started
        return Run(name, fix, True, _chain(exc), seconds, output.getvalue()[-_OUTPUT_LIMIT:])
    seconds = time.perf_counter() - started
    return Run(name, fix, False, [], seconds, output.getvalue()[-_OUTPUT_LIMIT:])


def measured_source(path: Path, clean: int, total: int, torch_version: str, variants: int) -> str:
    """The ``sources`` entry a measured rate carries, word for word: ``total`` variants the fix is
    meant for, of the reproduction's ``variants``."""
    version = torch_version.split("+", maxsplit=1)[0]
    measured = (
        f"measured: {clean} of {total} variants in records/repro/{path.name} run clean (torch {version})"
    )
    return measured if total == variants else f"{measured}; the fix applies to {total} of {variants} variants"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("paths", nargs="+", type=Path, help="reproduction files to run")
    args = parser.parse_args(argv)
    report = run_paths(args.paths)
    json.dump(asdict(report), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
