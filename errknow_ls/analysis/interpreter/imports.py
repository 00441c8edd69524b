"""The project's own modules: what an ``import`` of one reads (its definitions, not what it runs),
and the replay of a read another unit of the same check made."""

from __future__ import annotations

import ast
import itertools
import threading
import weakref
from dataclasses import dataclass

from errknow_ls.analysis.interpreter.base import STEP_BUDGET, Frame, InterpreterBase
from errknow_ls.analysis.modules import (
    PARSED,
    FolderState,
    ModuleSource,
    digest,
    note_folder,
    note_miss,
    says_the_same,
)
from errknow_ls.analysis.state import State
from errknow_ls.analysis.values import ClassInfo, ModuleRef, Ref, Value, outside

MODULE_DEFINITIONS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)
"""What is read of another module of the project: what it defines, not what it runs."""

MAX_MODULES = 64
"""Modules of the project one unit may read (each read once)."""


@dataclass(frozen=True, slots=True)
class _ImportEffects:
    """The interpreter before it read a module: what the read changed is measured from here."""

    serial: int
    total_steps: int
    steps: int
    modules: int
    read_again: int
    looked: int
    read: int
    classes: dict[str, ClassInfo]
    forward_calls: set[ast.AST]
    module_calls: set[ast.AST]
    others: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class _ImportRun:
    """What reading a module did: the modules read (it first, then those it imported), each with
    the hash of its text and its names; the steps it took; the classes and forward calls it made."""

    modules: tuple[tuple[str, str, dict[str, Value], ast.Module], ...]
    earlier: tuple[tuple[str, str, dict[str, Value]], ...]
    """Modules read before it that it imports, as they were: a replay needs them so."""
    looked_in: tuple[tuple[str, str], ...]
    """The folders where its imports found nothing, and what each held: a replay needs them so."""
    read: tuple[tuple[str, str], ...]
    """What it added to the check's reads (modules and folders), in order."""
    steps: int
    classes: tuple[tuple[str, ClassInfo], ...]
    forward_calls: frozenset[ast.AST]
    module_calls: frozenset[ast.AST]


class _ImportMemo:
    """Module reads by the modules they came from (while those are in use: one check's), by
    module key and text hash."""

    def __init__(self) -> None:
        self._by_source: weakref.WeakKeyDictionary[ModuleSource, dict[tuple[object, ...], _ImportRun]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def get(self, source: ModuleSource | None) -> dict[tuple[object, ...], _ImportRun] | None:
        if source is None:
            return None
        with self._lock:
            try:
                return self._by_source.setdefault(source, {})
            except TypeError:  # a source that cannot be referred to weakly is not remembered
                return None


_IMPORT_MEMO = _ImportMemo()


class Imports(InterpreterBase):
    """Reads the project's modules that the checked code imports.

    A module's read is the same in every unit of a check that reads it first (the same text, the same
    modules found for its imports): where it made nothing but its names, classes and steps, the next
    unit replays it. Performance only: a replay leaves the interpreter as the run would have (the
    same steps, serial numbers, names, classes and forward calls)."""

    def _import_from(self, module: str | None, names: list[ast.alias], level: int) -> None:
        loaded = self._import(module or "", level) if module or level else None
        namespace = self.namespaces.get(loaded.key, {}) if loaded is not None else {}
        for alias in names:
            if alias.name == "*":
                self.state.env.update((k, v) for k, v in namespace.items() if not k.startswith("_"))
                continue
            value = namespace.get(alias.name)
            if value is None and loaded is not None:  # `from pkg import module`
                value = self._import(f"{module}.{alias.name}" if module else alias.name, level)
            qualname = f"{module or ''}.{alias.name}"
            named = outside(qualname) if not level else Ref(qualname)  # `from .x import inf` is ours
            self.state.env[alias.asname or alias.name] = value or named

    def _import_package(self, dotted: str, held: Value | None) -> Value:
        """What ``import a.b.c`` binds to ``a``: the package, with ``b`` (and ``b``'s ``c``) as
        attributes, besides those an earlier ``import a.x`` made (``held``, what ``a`` holds)."""
        top, *rest = dotted.split(".")
        package = self._import(top, 0)
        if package is None:
            return Ref(top)
        chain = [package]
        for end in range(1, len(rest) + 1):
            found = self._import(".".join([top, *rest[:end]]), 0)
            if found is None:
                break
            chain.append(found)
        earlier = held if isinstance(held, ModuleRef) and held.key == package.key else None
        return _with_submodules(chain, rest, earlier)

    def _import(self, name: str, level: int) -> ModuleRef | None:
        """Read the project's module that ``import`` would load: its imports, definitions and
        module-level assignments (under no_grad: nothing of it is a graph of the checked run)."""
        if self.modules is None or len(self.namespaces) >= MAX_MODULES:
            return None
        found = self.modules.find(self._home(), name, level)
        if found is None:  # a module made later in one of these folders may be what it finds
            self._looked_in += note_miss(self.read, self.modules, self._home(), name, level)
            return None
        if found.key in self.namespaces:
            self._read_again.append(found.key)
            return ModuleRef(found.key)
        said = digest(found.text)
        if self._replay(found.key, said):
            return ModuleRef(found.key)
        tree = PARSED.parse(found)
        if tree is None:
            return None
        before = self._import_effects()
        self.read[found.key] = said
        self.trees[found.key] = tree
        namespace = self.namespaces[found.key] = {}  # before running it: an import cycle ends here
        saved, saved_no_grad, saved_stmt = self.state, self.no_grad, self._current_stmt
        self.state, self.no_grad = State(), True
        try:
            with self._frame(Frame(next(self._serial), None, None, self.tick, module=found.key)):
                for stmt in tree.body:
                    if isinstance(stmt, MODULE_DEFINITIONS):
                        self.exec_stmt(stmt)
            namespace.update(self.state.env)
            self._dead_reads += self.state.dead  # a NameError ended it: what it did is not replayed
        finally:
            self.state, self.no_grad, self._current_stmt = saved, saved_no_grad, saved_stmt
        self._remember(found.key, said, before)
        return ModuleRef(found.key)

    def _looked_at(self, folder: str, held: FolderState) -> None:
        """An import found nothing in ``folder``, which held this: the check stands while it holds
        the same."""
        note_folder(self.read, folder, held)
        self._looked_in.append(folder)

    def _import_effects(self) -> _ImportEffects:
        return _ImportEffects(
            self.serial_now(),
            self.total_steps,
            self.steps,
            len(self.namespaces),
            len(self._read_again),
            len(self._looked_in),
            len(self.read),
            dict(self.classes),
            set(self.forward_calls),
            set(self.module_calls),
            self._other_effects(),
        )

    def _other_effects(self) -> tuple[object, ...]:
        """What reading a module changes only when it runs code (a call, a loop, a backward)."""
        return (
            len(self.nodes),
            len(self.events),
            len(self.retain_sites),
            len(self.loops),
            self.tick,
            self.step_tick,
            len(self.stepping),
            len(self.forward_hooks),
            len(self._closures),
            len(self.called_functions),
            len(self.called_lambdas),
            len(self._raised_by),
            self._raised,
            id(self.globals),
            self._dead_reads,
            self._conditional,
            self._module_running,
        )

    def _remember(self, key: str, said: str, before: _ImportEffects) -> None:
        memo = _IMPORT_MEMO.get(self.modules)
        if memo is None:
            return
        added = list(self.namespaces)[before.modules :]
        serials = self.serial_now() - before.serial
        steps = self.total_steps - before.total_steps
        classes = tuple((n, c) for n, c in self.classes.items() if before.classes.get(n) is not c)
        if (
            serials != len(added)  # only the modules' own frames: no call, object or loop
            or self.steps - before.steps != steps
            or len(self.namespaces) >= MAX_MODULES
            or self._other_effects() != before.others
            or any(k not in self.read or k not in self.trees for k in added)
            or any(n in before.classes for n, _ in classes)  # it replaced no class known before
        ):
            return
        earlier = dict.fromkeys(k for k in self._read_again[before.read_again :] if k not in added)
        if any(k not in self.read for k in earlier):
            return
        memo[self._memo_key(key, said)] = _ImportRun(
            tuple((k, self.read[k], dict(self.namespaces[k]), self.trees[k]) for k in added),
            tuple((k, self.read[k], dict(self.namespaces[k])) for k in earlier),
            tuple((k, self.read[k]) for k in dict.fromkeys(self._looked_in[before.looked :])),
            tuple(self.read.items())[before.read :],
            steps,
            classes,
            frozenset(self.forward_calls - before.forward_calls),
            frozenset(self.module_calls - before.module_calls),
        )

    def _memo_key(self, key: str, said: str) -> tuple[object, ...]:
        """What a read depends on besides the texts: whether a NameError in it may end a path."""
        return (key, said, bool(self._conditional), self._module_running)

    def _replay(self, key: str, said: str) -> bool:
        """Replay the remembered read of the module at ``key`` (whose text hashes to ``said``),
        where it would run the same now; False when it must run."""
        memo = _IMPORT_MEMO.get(self.modules)
        run = memo.get(self._memo_key(key, said)) if memo is not None else None
        if run is None or self.modules is None:
            return False
        if len(self.namespaces) + len(run.modules) >= MAX_MODULES:
            return False
        if any(name in self.classes for name, _ in run.classes):
            return False
        if (
            self.steps + run.steps > max(STEP_BUDGET, self.budget)
            or self.total_steps + run.steps > self.budget
        ):
            return False  # the budget runs out inside: running it stops where it would
        for other, other_said, namespace in run.earlier:  # it finds them read, with these names
            if self.read.get(other) != other_said or self.namespaces.get(other) != namespace:
                return False
        if not all(says_the_same(self.modules, folder, held) for folder, held in run.looked_in):
            return False
        for other, other_said, _, _ in run.modules:
            if other in self.namespaces:
                return False
            if other != key:
                text = self.modules.text(other)
                if text is None or digest(text) != other_said:
                    return False
        for key_read, said_then in run.read:
            self.read.setdefault(key_read, said_then)
        for other, _, namespace, tree in run.modules:
            self.trees[other] = tree
            self.namespaces[other] = dict(namespace)
        for folder, held in run.looked_in:
            self._looked_at(folder, FolderState.of(held))
        self._serial = itertools.count(self.serial_now() + len(run.modules))
        self.steps += run.steps
        self.total_steps += run.steps
        for name, info in run.classes:
            self.classes[name] = info
        self.forward_calls |= run.forward_calls
        self.module_calls |= run.module_calls
        return True


def _with_submodules(chain: list[ModuleRef], names: list[str], earlier: ModuleRef | None) -> ModuleRef:
    """``chain[0]`` with ``chain[1]`` as its attribute ``names[0]``, and so on down the chain,
    each keeping the submodules ``earlier`` (the same package, as bound before) gave it."""
    module = chain[0]
    kept = earlier.submodules if earlier is not None else ()
    if len(chain) == 1:
        return ModuleRef(module.key, kept)
    name = names[0]
    before = earlier.submodule(name) if earlier is not None else None
    child = _with_submodules(
        chain[1:], names[1:], before if before is not None and before.key == chain[1].key else None
    )
    return ModuleRef(module.key, (*((n, m) for n, m in kept if n != name), (name, child)))
