"""The names a module of the project binds only to what comes from outside the project.

Which of the project's functions may reach a backward is worked out by the names they call
(``checker._imported_reaching``). A name is only a name: ``thop.profile(model, ...)`` in a model's
``forward`` is not the project's own ``profile`` that runs a backward to time it, yet by name it was,
and so every ``forward`` and ``__init__`` of that project "reached a backward", and every file that
builds its model was checked to its end for nothing (ultralytics/yolov5: all of them).

Here a module's names are told apart by what binds them. A name counts as from outside when every
binding of it anywhere in the module (any scope: an import, an assignment, a parameter, a ``def``,
a ``for``'s target, ...) is either an import that finds no module of the project, or an assignment
of a constant (``except ImportError: thop = None``). A call of such a name, or of an attribute of it,
runs code the checker never follows, so it reaches no backward of the project's. Anything that
could bind names unseen (``globals()``, ``exec``, a ``from m import *`` of a module that does not
parse) makes no name count; ``from m import *`` of the project's ``m`` binds what ``m`` binds.
Each import that found nothing is noted in ``read``, as the walk through the imports notes its own
misses: a module of that name made later changes the answer.
"""

from __future__ import annotations

import ast
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath

from errknow_ls.analysis.modules import PARSED, ModuleSource, ModuleText, digest, note_miss

UNSEEN_BINDERS = frozenset({"globals", "exec"})
"""Calls through which a module may bind names that no statement of it shows (its globals' dict,
code run in them); ``vars(x)``, ``locals()`` and ``eval`` of an expression bind none."""


@dataclass(frozen=True, slots=True)
class Bindings:
    """How a module's text binds names (worked out once per text)."""

    imports: tuple[ImportSpec, ...]
    """Every import statement, at any depth."""
    otherwise: frozenset[str]
    """The names bound in any other way (but an assignment of a constant)."""
    unseen: bool
    """It calls one of ``UNSEEN_BINDERS``."""


ImportSpec = tuple[str | None, int, tuple[tuple[str, str | None], ...]]
"""An import statement: the module of a ``from`` import (None for ``import a, b``, and for ``from .
import x``, told apart by the level), its level, and each name imported with its ``as`` name."""

KEEP_BINDINGS = 4_096
_KEPT: OrderedDict[str, Bindings | None] = OrderedDict()
"""Each module's ``Bindings`` by the hash of its text (None: it does not parse), in ``PARSED``."""


def outside_names(module: ModuleText, modules: ModuleSource, read: dict[str, str]) -> frozenset[str]:
    """The names ``module`` binds only to what comes from outside the project."""
    bindings = PARSED.kept(_KEPT, digest(module.text), lambda: _bindings(module), KEEP_BINDINGS)
    if bindings is None or bindings.unseen:
        return frozenset()
    checked = modules.checked_key
    checked_stem = PurePath(checked).stem if checked is not None else None
    from_outside: set[str] = set()
    bound_otherwise = set(bindings.otherwise)
    for spec in bindings.imports:
        for name, outside in _import_bindings(spec, module.key, modules, read, checked_stem):
            if name is not None:
                (from_outside if outside else bound_otherwise).add(name)
            elif not outside:  # `from m import *`, m the project's: whatever m binds
                starred = _star_names(spec, module.key, modules)
                if starred is None:
                    return frozenset()
                bound_otherwise |= starred
    return frozenset(from_outside - bound_otherwise)


def _bindings(module: ModuleText) -> Bindings | None:
    parsed = PARSED.read(module)
    if parsed is None:
        return None
    constants = _constant_targets(parsed.tree)
    imports: list[ImportSpec] = []
    otherwise: set[str] = set()
    unseen = False
    for node in ast.walk(parsed.tree):
        if isinstance(node, ast.Import):
            imports.append((None, -1, tuple((a.name, a.asname) for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            imports.append((node.module, node.level, tuple((a.name, a.asname) for a in node.names)))
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in UNSEEN_BINDERS
        ):
            unseen = True
        else:
            otherwise.update(_bound_by(node, constants))
    return Bindings(tuple(imports), frozenset(otherwise), unseen)


def _import_bindings(
    spec: ImportSpec, importer: str, modules: ModuleSource, read: dict[str, str], checked_stem: str | None
) -> Iterator[tuple[str | None, bool]]:
    """Each name the import binds (None: ``*``), and whether no module of the project is behind it."""
    source, level, names = spec

    def nowhere(*dotted: str) -> bool:
        return _nowhere(importer, modules, read, checked_stem, *dotted)

    if level < 0:  # import a.b, c
        for name, asname in names:
            top = name.split(".")[0]
            yield asname or top, nowhere(name, top)
        return
    for name, asname in names:
        if name == "*":  # from outside, it binds only names from outside
            yield None, not level and nowhere(source or "")
        elif level or source is None:
            yield asname or name, False  # a relative import: the project's own
        else:
            yield asname or name, nowhere(source, f"{source}.{name}")


def _nowhere(
    importer: str, modules: ModuleSource, read: dict[str, str], checked_stem: str | None, *names: str
) -> bool:
    """No module of the project answers to any of ``names`` (absolute imports); each miss noted.
    A name that may be the checked file's own module (its stem ``checked_stem``: the checked file
    is never one of its own modules, so never found) is not from outside."""
    for name in names:
        if modules.find(importer, name, 0) is not None or checked_stem in name.split("."):
            return False
    for name in names:
        note_miss(read, modules, importer, name, 0)
    return True


def _star_names(spec: ImportSpec, importer: str, modules: ModuleSource) -> set[str] | None:
    """The names ``from m import *`` may bind, ``m`` being the project's: every name ``m`` binds
    at its top level, or in a block there (None: ``m`` is not found or does not parse)."""
    source, level, _ = spec
    found = modules.find(importer, source or "", level)
    parsed = PARSED.read(found) if found is not None else None
    if parsed is None:
        return None
    names: set[str] = set()
    pending: list[ast.stmt] = list(parsed.tree.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            if any(alias.name == "*" for alias in stmt.names):
                return None  # its own star import: what it passes on is not worked out
            names.update(alias.asname or alias.name.split(".")[0] for alias in stmt.names)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        else:
            names.update(
                n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            )
            for block in ("body", "orelse", "finalbody"):
                pending.extend(s for s in getattr(stmt, block, ()) if isinstance(s, ast.stmt))
            pending.extend(s for h in getattr(stmt, "handlers", ()) for s in h.body)
    return names


def _constant_targets(tree: ast.Module) -> set[int]:
    """The names (by node) that assignments of a constant bind: ``thop = None``."""
    return {
        id(target)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _bound_by(node: ast.AST, constants: set[int]) -> Iterator[str]:
    """The names ``node`` binds (but imports, and names assigned a constant)."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and id(node) not in constants:
        yield node.id
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest
    elif isinstance(node, ast.Global | ast.Nonlocal):
        yield from node.names
