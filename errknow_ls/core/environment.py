"""The workspace's torch version, read from package metadata files: nothing is imported or run."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

_DIST_INFO = re.compile(r"^torch-(?P<version>[0-9][^-]*?)(?:-py[^-]*)?\.(?:dist|egg)-info$", re.IGNORECASE)
_VERSION_HEADER = re.compile(r"^Version:\s*(?P<version>\S+)\s*$", re.MULTILINE)
VENV_NAMES = (".venv", "venv", "env", ".env")
METADATA_FILES = ("METADATA", "PKG-INFO")


def _site_packages(prefix: Path) -> Iterator[Path]:
    """``lib/python3.X/site-packages`` (POSIX), ``Lib/site-packages`` (Windows), ``lib/site-packages``."""
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


def _version_of(info: Path) -> str | None:
    """The ``Version:`` header of the distribution's metadata, else the version in the directory name."""
    for name in METADATA_FILES:
        try:
            head = (info / name).read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            continue
        header = _VERSION_HEADER.search(head)
        if header:
            return header.group("version")
    named = _DIST_INFO.match(info.name)
    return named.group("version") if named else None


def torch_version(roots: Iterable[Path], interpreter: str | None = None) -> str | None:
    """torch's version in the configured interpreter's environment, or a ``.venv``/``venv`` of a root."""
    prefixes = [_prefix_of(Path(interpreter).expanduser())] if interpreter else []
    prefixes += [root / name for root in roots for name in VENV_NAMES]
    for prefix in prefixes:
        for site in _site_packages(prefix):
            for info in sorted(site.glob("torch-*-info")):
                if _DIST_INFO.match(info.name):
                    version = _version_of(info)
                    if version:
                        return version
    return None
