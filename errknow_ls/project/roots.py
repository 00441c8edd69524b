"""Where a project's own modules are imported from: its import roots, and the file of a module.

An import root is a directory that Python's import system searches for the project's top-level
modules when the project is installed or run from its root. Known, in this order:

- what ``pyproject.toml`` declares: setuptools' ``package-dir`` (the ``""`` entry) and
  ``packages.find.where``, Poetry's ``packages[].from``, Hatch's ``sources`` for the wheel;
- else ``src/`` when it holds a package or module (the "src layout");
- the project root itself, always (scripts run from there import their siblings).

Only directories that exist are listed. A module is found in a root as a package
(``name/__init__.py``), a module (``name.py``) or a namespace package (a plain directory ``name/``
whose part holds the rest of the dotted name), in the order the import system tries them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PYPROJECT = "pyproject.toml"
SRC = "src"


def import_roots(root: Path) -> list[Path]:
    """The directories the project's top-level modules are imported from, most specific first."""
    declared = [root / relative for relative in _declared(_pyproject(root))]
    if not declared and _holds_modules(root / SRC):
        declared = [root / SRC]
    roots = [*declared, root]
    return [path for path in dict.fromkeys(p.resolve() for p in roots) if path.is_dir()]


def module_file(roots: Sequence[Path], dotted: str) -> Path | None:
    """The file that ``import dotted`` loads from the first root holding it: a module's ``.py``,
    a package's ``__init__.py``; ``None`` for a namespace package or a module in no root."""
    parts = dotted.split(".")
    for root in roots:
        found = _find(os.fspath(root), parts)
        if found is not None:
            return Path(found)
    return None


def folders_deciding(roots: Sequence[Path], dotted: str) -> list[tuple[str, tuple[str, ...]]]:
    """The folders whose entries decide where (or whether) ``import dotted`` is found in
    ``roots``, each with the entries that decide it: in each root, the first part's module or
    package; in each existing folder below it along the dotted name, whether it is a package and
    the next part's module or package. Folders as strings, as :func:`module_file` walks them."""
    parts = dotted.split(".")
    folders: list[tuple[str, tuple[str, ...]]] = []
    for root in roots:
        directory = os.fspath(root)
        folders.append((directory, (f"{parts[0]}.py", parts[0])))
        for part, following in itertools.pairwise(parts):
            directory = os.path.join(directory, part)  # noqa: PTH118
            if not os.path.isdir(directory):  # noqa: PTH112
                break
            folders.append((directory, ("__init__.py", f"{following}.py", following)))
    return list(dict.fromkeys(folders))


def _find(directory: str, parts: list[str]) -> str | None:
    # Strings, not Paths: every import of every module a check walks asks here, and building a
    # Path per step cost three times the stats themselves.
    head, rest = parts[0], parts[1:]
    package = os.path.join(directory, head)  # noqa: PTH118
    init = os.path.join(package, "__init__.py")  # noqa: PTH118
    if os.path.isfile(init):  # noqa: PTH113
        return init if not rest else _find(package, rest)
    module = os.path.join(directory, f"{head}.py")  # noqa: PTH118
    if os.path.isfile(module):  # noqa: PTH113
        return None if rest else module
    if rest and os.path.isdir(package):  # noqa: PTH112
        return _find(package, rest)
    return None


def _holds_modules(directory: Path) -> bool:
    if not directory.is_dir():
        return False
    return any(entry.suffix == ".py" or (entry / "__init__.py").is_file() for entry in directory.iterdir())


def _pyproject(root: Path) -> dict[str, Any]:
    import tomllib  # noqa: PLC0415 (on use: a check outside a project reads no pyproject.toml)

    try:
        return tomllib.loads((root / PYPROJECT).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _table(data: object, *keys: str) -> dict[str, Any]:
    """``data[keys[0]][keys[1]]...`` when each is a table; an empty one otherwise."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _declared(data: dict[str, Any]) -> list[str]:
    setuptools = _table(data, "tool", "setuptools")
    found: list[object] = [_table(setuptools, "package-dir").get("")]
    where = _table(setuptools, "packages", "find").get("where", [])
    found.extend(where if isinstance(where, list) else [where])
    poetry_packages = _table(data, "tool", "poetry").get("packages")
    if isinstance(poetry_packages, list):
        found.extend(entry.get("from") for entry in poetry_packages if isinstance(entry, dict))
    sources = _table(data, "tool", "hatch", "build", "targets", "wheel").get("sources")
    if isinstance(sources, list):
        found.extend(sources)
    elif isinstance(sources, dict):
        found.extend(key for key, value in sources.items() if value == "")
    return [entry for entry in found if isinstance(entry, str) and entry not in ("", ".")]
