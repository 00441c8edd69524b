"""The project's own modules, as the checker reads them: what an import names, found and parsed.

The checker does not look for files itself: whoever checks (the CLI, the server) hands it a
:class:`ModuleSource` that knows the project's roots and the texts of its modules (an editor's
unsaved buffers included): ``ProjectModules`` of ``errknow_ls.project``. A module it cannot find
stays unknown, as every installed library does.
"""

from __future__ import annotations

import ast
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, TypeVar

from errknow_ls.analysis.chunks import PARSE_ERRORS, calls_by_function
from errknow_ls.analysis.prefilter import might_backward
from errknow_ls.analysis.source import chunk_offsets, parse


@dataclass(frozen=True, slots=True)
class ModuleText:
    """One module of the project: where it is (its key, a path) and what it says."""

    key: str
    text: str


class ModuleTexts(Protocol):
    """What the project's modules and folders say now: what a check's result is checked against."""

    def text(self, key: str) -> str | None:
        """What the module at ``key`` says now (None when it is gone): whether a check that read it
        still stands."""

    def folder_state(self, key: str, names: Iterable[str]) -> FolderState:
        """Which of ``names`` the folder at ``key`` holds now, and its modification time."""


FOLDER = "folder:"
"""How a :class:`Dependency` on a folder's entries (an import that found nothing there) starts its
digest, where a module's digest is the hash of its text."""


LookedIn = tuple[tuple[str, tuple[str, ...]], ...]
"""Folders where an import looked, each with the entries it looked for there."""


@dataclass(frozen=True, slots=True)
class FolderState:
    """What a folder held where an import looked for a module and found none: which of the entries
    it looked for exist (``names``), and the folder's modification time then (while that has not
    moved, no entry was made, removed or renamed in it)."""

    mtime_ns: int | None
    """None: the folder was not there."""
    names: tuple[tuple[str, bool], ...]

    def said(self) -> str:
        """The state as a :class:`Dependency`'s digest."""
        held = ",".join(f"{name}={int(there)}" for name, there in self.names)
        return f"{FOLDER}{'' if self.mtime_ns is None else self.mtime_ns}:{held}"

    @classmethod
    def of(cls, said: str) -> FolderState:
        """The state whose :meth:`said` is ``said``; raises ``DamagedState`` where no
        :meth:`said` wrote it."""
        return _folder_state_of(said)

    def joined(self, other: FolderState) -> FolderState:
        """What both looks at the folder asked of it, with the older time (the next check of it
        then compares the entries themselves)."""
        names = dict(self.names) | dict(other.names)
        times = [t for t in (self.mtime_ns, other.mtime_ns) if t is not None]
        mtime = min(times) if len(times) == 2 else None
        return FolderState(mtime, tuple(sorted(names.items())))


class DamagedState(ValueError):
    """A folder's state that ``FolderState.said`` did not write (a damaged cache's)."""


@lru_cache(maxsize=4_096)
def _folder_state_of(said: str) -> FolderState:
    """``FolderState.of``, read once per text (every unit of a script that imports torch says the
    same of its folder, and each check of an edit asks it again)."""
    mtime, _, held = said.removeprefix(FOLDER).partition(":")
    pairs = (pair.rpartition("=") for pair in held.split(",") if pair)
    try:
        time = int(mtime) if mtime else None
    except ValueError as exc:
        raise DamagedState(said) from exc
    return FolderState(time, tuple((name, there == "1") for name, _, there in pairs))


def note_miss(
    read: dict[str, str], source: ModuleSource, importer: str | None, name: str, level: int
) -> list[str]:
    """An import that found nothing in the project: each folder whose entries decided that goes into
    ``read`` (by key, with what it held, joined with what an earlier look there asked); the folders."""
    folders = []
    for folder, names in source.looked_in(importer, name, level):
        note_folder(read, folder, source.folder_state(folder, names))
        folders.append(folder)
    return folders


def note_folder(read: dict[str, str], folder: str, held: FolderState) -> None:
    """``folder`` held this where an import looked for a module: into ``read``, joined with what an
    earlier look there asked of it."""
    known = read.get(folder)
    if known is None:
        read[folder] = held.said()
        return
    then, asked = _said_before(known)
    same_time = _joined_time(held, then) == then.mtime_ns
    if asked is not None and same_time and all(name in asked for name, _ in held.names):
        return  # the join would say ``known`` again: every entry asked here was asked there
    read[folder] = held.joined(then).said()


def _joined_time(one: FolderState, other: FolderState) -> int | None:
    """The modification time :meth:`FolderState.joined` keeps."""
    if one.mtime_ns is None or other.mtime_ns is None:
        return None
    return min(one.mtime_ns, other.mtime_ns)


@lru_cache(maxsize=1_024)
def _said_before(said: str) -> tuple[FolderState, frozenset[str] | None]:
    """The state ``said`` spells, with the entries it asked about where joining into it cannot
    reorder them (each once, in order, and spelled back as ``said``); else None. Worked out once per
    text: a folder that a hundred imports look in would be read and spelled again for each (each
    time longer), 13% of a check of the files that only import."""
    state = FolderState.of(said)
    names = [name for name, _ in state.names]
    exact = names == sorted(set(names)) and state.said() == said
    return state, frozenset(names) if exact else None


class ModuleSource(ModuleTexts, Protocol):
    """The project's modules, for the checker to read."""

    @property
    def scope(self) -> str:
        """What decides how names resolve (the checked file's place, the project's roots): checks of
        the same text with the same scope and the same modules' texts give the same result."""

    @property
    def layout(self) -> tuple[str, ...] | None:
        """What, with one layout of the project's files, decides how the imports of its modules
        resolve, where checks share that layout (one run of ``check``): what resolving them found
        for one check holds for another with the same layout, but where the checked file is among
        what it found, or was passed over (see ``passed_over``). None: nothing is shared."""

    @property
    def checked_key(self) -> str | None:
        """The checked file's key, where it has one: it is never one of its own modules."""

    @property
    def passed_over(self) -> int:
        """How many finds so far passed over the checked file: a module they would have found."""

    def find(self, importer: str | None, name: str, level: int) -> ModuleText | None:
        """The module ``import`` would load, or None: ``importer`` is the key of the module whose
        import statement it is (None for the checked text itself), ``name`` the dotted name as
        written, ``level`` the number of leading dots of a relative import."""

    def looked_in(
        self, importer: str | None, name: str, level: int
    ) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The folders whose entries decided that :meth:`find` found nothing for this import, each
        with the entries it looked for there: a module made as one of them may be what it finds
        next time."""


MAX_MODULE_CHARS = 2_000_000
"""A module larger than this is left unknown: reading it would cost more than it can tell."""


@dataclass(frozen=True, slots=True)
class Dependency:
    """A module a check read, by key and the hash of the text it read, or a folder where an import
    found nothing, by key and its :meth:`~ModuleTexts.folder_state`: a check's result stands as
    long as each of these still says the same."""

    key: str
    digest: str

    def paths(self) -> tuple[str, ...]:
        """The paths whose change (or creation, or removal) can change what it says: the module's
        own, or the entries looked for in the folder."""
        if not self.digest.startswith(FOLDER):
            return (self.key,)
        try:
            names = FolderState.of(self.digest).names
        except DamagedState:
            return (self.key,)
        return tuple(os.path.join(self.key, name) for name, _ in names)  # noqa: PTH118 (keys are strings)


@lru_cache(maxsize=4_096)
def digest(text: str) -> str:
    """The hash of a module's text. Kept by text: the texts of a process's modules are read once
    (``DiskTexts``), and looking one up again costs a hash of the string object, which Python
    keeps in it, where hashing it anew cost 7% of a check of the files that only import."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class ParsedModule:
    """What a module's text says, worked out once per text: its tree and what checks ask of it."""

    tree: ast.Module
    defined: frozenset[str]
    """Every function and class it defines, at any depth."""
    may_backward: bool
    """It holds the words a backward needs (``might_backward``): without them, no code of its own
    can run one."""
    imports: tuple[ast.Import | ast.ImportFrom, ...]
    """Its module-level import statements."""


Imports = tuple[ast.Import | ast.ImportFrom, ...]
T = TypeVar("T")
K = TypeVar("K")


class ParsedModules:
    """The project's modules, parsed, by the hash of their text, the most recent kept: shared by
    every check in a process (a helper module imported by fifty files is parsed and walked once)."""

    def __init__(self, keep: int = 256) -> None:
        self.keep = keep
        self._parsed: OrderedDict[str, ParsedModule | None] = OrderedDict()
        self._imports: OrderedDict[str, Imports | None] = OrderedDict()
        self._calls: OrderedDict[tuple[str, frozenset[str]], dict[str, frozenset[str]]] = OrderedDict()
        self._lock = threading.Lock()

    def imports(self, module: ModuleText) -> Imports | None:
        """The module's module-level import statements without parsing all of it: every top-level
        statement (a chunk, see ``chunk_offsets``) whose text has the word parsed on its own. Where
        the whole module parses, these are its ``imports`` (a misread chunk can only add some).
        None where a chunk that has the word does not parse on its own (ask :meth:`read`); a
        module that does not parse at all may still give some, so they tell what it *would*
        import, not that it parses."""
        if len(module.text) > MAX_MODULE_CHARS:
            return None
        return self.kept(
            self._imports, digest(module.text), lambda: _chunked_imports(module.text), IMPORTS_KEPT
        )

    def calls(self, module: ModuleText, outside: frozenset[str] = frozenset()) -> dict[str, frozenset[str]]:
        """Each function the module defines (methods and nested ones too) -> the names it calls
        (a class -> the methods its instance runs when made or called), but the calls of names
        in ``outside`` and of their attributes; empty where the module does not parse or is too
        large to read."""

        def work() -> dict[str, frozenset[str]]:
            parsed = self.read(module)  # only when not kept: a tree dropped is not parsed again
            return {} if parsed is None else _calls_of(parsed.tree, outside)

        return self.kept(self._calls, (digest(module.text), outside), work, IMPORTS_KEPT)

    def parse(self, module: ModuleText) -> ast.Module | None:
        """The module's tree, or None when it does not parse or is too large to read."""
        parsed = self.read(module)
        return None if parsed is None else parsed.tree

    def read(self, module: ModuleText) -> ParsedModule | None:
        """The module parsed, or None when it does not parse or is too large to read."""
        if len(module.text) > MAX_MODULE_CHARS:
            return None
        return self.kept(self._parsed, digest(module.text), lambda: _parsed(module.text))

    def kept(self, store: OrderedDict[K, T], key: K, work: Callable[[], T], keep: int | None = None) -> T:
        """What ``store`` holds for ``key``, else what ``work`` gives, kept (the least recently
        used dropped beyond ``keep``, the trees' ``self.keep`` where not given); what else is
        worked out once per module text keeps its own store here too (``outside.py``)."""
        with self._lock:
            if key in store:
                store.move_to_end(key)
                return store[key]
        found = work()
        with self._lock:
            store[key] = found
            while len(store) > (self.keep if keep is None else keep):
                store.popitem(last=False)
        return found


def _parsed(text: str) -> ParsedModule | None:
    try:
        tree = ast.parse(text)
    except (*PARSE_ERRORS, RecursionError):
        return None
    imports = tuple(stmt for stmt in tree.body if isinstance(stmt, ast.Import | ast.ImportFrom))
    return ParsedModule(tree, _definitions(tree), might_backward(text), imports)


def _calls_of(tree: ast.Module, outside: frozenset[str]) -> dict[str, frozenset[str]]:
    functions: dict[str, set[str]] = {}
    calls_by_function(tree, functions, outside)
    return {name: frozenset(called) for name, called in functions.items()}


IMPORTS_KEPT = 4_096
"""Modules whose import statements and calls by function are kept (small beside a tree: the walk
through a large package asks for them of thousands of modules), beyond the trees kept."""

PARSED = ParsedModules()

_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields of a node that hold statements (an ``except`` clause's and a ``case``'s hold them
in their own ``body``)."""


def _chunked_imports(text: str) -> Imports | None:
    """The import statements among the top-level statements of the chunks of ``text`` that say
    ``import``; None when one of those chunks does not parse on its own."""
    offsets = chunk_offsets(text)
    found: list[ast.Import | ast.ImportFrom] = []
    for start, end in zip(offsets, [*offsets[1:], len(text)], strict=True):
        if "import" not in text[start:end]:
            continue
        try:
            tree = parse(text[start:end])
        except (*PARSE_ERRORS, RecursionError):
            return None
        found += (stmt for stmt in tree.body if isinstance(stmt, ast.Import | ast.ImportFrom))
    return tuple(found)


def _definitions(tree: ast.Module) -> frozenset[str]:
    """The name of every function and class in ``tree``, at any depth. A definition is a
    statement, so only statements are walked, not the expressions that make up most of a tree
    (what ``ast.walk`` visits): a tenth of the nodes."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        for field in _STATEMENT_LISTS:
            pending.extend(getattr(node, field, ()))
    return frozenset(names)


def says_the_same(texts: ModuleTexts, key: str, then: str) -> bool:
    """The module at ``key`` still says what it said (its text hashes to ``then``), or the folder at
    ``key`` still holds what it held (``then`` is a :class:`FolderState`'s digest)."""
    if not then.startswith(FOLDER):
        now = texts.text(key)
        return now is not None and digest(now) == then
    try:
        held = FolderState.of(then)
    except DamagedState:
        return False  # what a damaged cache says holds nothing
    if held.mtime_ns is not None and texts.folder_state(key, ()).mtime_ns == held.mtime_ns:
        return True  # no entry made, removed or renamed in it since
    return texts.folder_state(key, (name for name, _ in held.names)).names == held.names


def still_current(read: tuple[Dependency, ...], source: ModuleSource | None) -> bool:
    """Every module a check read still says what it said then, and every folder where an import
    found nothing holds the same entries."""
    if not read:
        return True
    if source is None:
        return False
    return all(says_the_same(source, d.key, d.digest) for d in read)
