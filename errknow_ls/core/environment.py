"""The workspace's torch version, read from package metadata files: nothing is imported or run."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

_DIST_INFO = re.compile(r"^torch-(?P<version>[0-9][^-]*)\.(?:dist|egg)-info$", re.IGNORECASE)
VENV_NAMES = (".venv", "venv", "env", ".env")


def _site_packages(prefix: Path) -> Iterable[Path]:
    for lib in ("lib", "lib64", "Lib"):
        base = prefix / lib
        if not base.is_dir():
            continue
        if (base / "site-packages").is_dir():
            yield base / "site-packages"
        yield from sorted(base.glob("python3*/site-packages"))


def _prefix_of(interpreter: Path) -> Path:
    """``/x/.venv/bin/python`` -> ``/x/.venv``; a directory is taken as the prefix itself."""
    if interpreter.is_dir():
        return interpreter
    return interpreter.parent.parent


def torch_version(roots: Iterable[Path], interpreter: str | None = None) -> str | None:
    """torch's version in the configured interpreter's environment, or a ``.venv``/``venv`` of a root."""
    prefixes = [_prefix_of(Path(interpreter))] if interpreter else []
    prefixes += [root / name for root in roots for name in VENV_NAMES]
    for prefix in prefixes:
        for site in _site_packages(prefix):
            for entry in sorted(site.glob("torch-*-info")):
                match = _DIST_INFO.match(entry.name)
                if match:
                    return match.group("version")
    return None
