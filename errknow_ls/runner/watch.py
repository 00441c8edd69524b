"""``check --watch``: check, then check again whenever a Python file, a notebook or the project's
settings change below the given paths (``watchfiles``: the operating system's change events)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from errknow_ls.project.discovery import CHECKED_SUFFIXES
from errknow_ls.runner.options import CheckOptions, ExitCode
from errknow_ls.runner.run import run_check

WATCHED_NAMES = ("pyproject.toml",)
READY = "Watching for file changes."
READY_AFTER_MS = 200
"""How long the watcher waits for a first change before it says it is watching."""


def watch(options: CheckOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Runs until interrupted (Ctrl+C); returns the exit code of the last check."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        import watchfiles  # noqa: PLC0415 (an optional extra: only --watch needs it)
    except ImportError:
        print("error: --watch needs the watchfiles package: pip install 'errknow-ls[watch]'", file=err)
        return ExitCode.ERROR
    roots = [path if path.is_dir() else path.parent for path in options.paths]
    code = run_check(options, out, err)
    # The first yield is empty, once the watcher is up: only then is it ready to be told about.
    changes_seen = watchfiles.watch(
        *roots,
        watch_filter=_relevant,
        raise_interrupt=False,
        yield_on_timeout=True,
        rust_timeout=READY_AFTER_MS,
    )
    ready = False
    for changes in changes_seen:
        if changes:
            names = sorted({Path(path).name for _, path in changes})
            print(f"\nFile change detected ({', '.join(names)}): checking again.", file=out)
            code = run_check(options, out, err)
        if changes or not ready:
            print(READY, file=out, flush=True)
            ready = True
    return code


def _relevant(_change: object, path: str) -> bool:
    return path.endswith(CHECKED_SUFFIXES) or path.endswith(WATCHED_NAMES)
