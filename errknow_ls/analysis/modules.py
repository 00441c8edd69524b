"""The project's own modules, as the checker reads them: what an import names, found and parsed.

The checker does not look for files itself: whoever checks (the CLI, the server) hands it a
:class:`ModuleSource` that knows the project's roots and the texts of its modules (an editor's
unsaved buffers included): ``ProjectModules`` of ``errknow_ls.project``. A module it cannot find
stays unknown, as every installed library does.
"""

from __future__ import annotations

import ast
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

from errknow_ls.analysis.chunks import PARSE_ERRORS
from errknow_ls.analysis.prefilter import might_backward


@dataclass(frozen=True, slots=True)
class ModuleText:
    """One module of the project: where it is (its key, a path) and what it says."""

    key: str
    text: str


class ModuleSource(Protocol):
    """The project's modules, for the checker to read."""

    @property
    def scope(self) -> str:
        """What decides how names resolve (the checked file's place, the project's roots): checks of
        the same text with the same scope and the same modules' texts give the same result."""

    def find(self, importer: str | None, name: str, level: int) -> ModuleText | None:
        """The module ``import`` would load, or None: ``importer`` is the key of the module whose
        import statement it is (None for the checked text itself), ``name`` the dotted name as
        written, ``level`` the number of leading dots of a relative import."""

    def text(self, key: str) -> str | None:
        """What the module at ``key`` says now (None when it is gone): whether a check that read it
        still stands."""


MAX_MODULE_CHARS = 2_000_000
"""A module larger than this is left unknown: reading it would cost more than it can tell."""


@dataclass(frozen=True, slots=True)
class Dependency:
    """A module a check read, by key and the hash of the text it read: a check's result stands as
    long as each of these still says the same."""

    key: str
    digest: str


def digest(text: str) -> str:
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


class ParsedModules:
    """The project's modules, parsed, by the hash of their text, the most recent kept: shared by
    every check in a process (a helper module imported by fifty files is parsed and walked once)."""

    def __init__(self, keep: int = 256) -> None:
        self.keep = keep
        self._parsed: OrderedDict[str, ParsedModule | None] = OrderedDict()
        self._lock = threading.Lock()

    def parse(self, module: ModuleText) -> ast.Module | None:
        """The module's tree, or None when it does not parse or is too large to read."""
        parsed = self.read(module)
        return None if parsed is None else parsed.tree

    def read(self, module: ModuleText) -> ParsedModule | None:
        """The module parsed, or None when it does not parse or is too large to read."""
        if len(module.text) > MAX_MODULE_CHARS:
            return None
        key = digest(module.text)
        with self._lock:
            if key in self._parsed:
                self._parsed.move_to_end(key)
                return self._parsed[key]
        try:
            tree = ast.parse(module.text)
        except (*PARSE_ERRORS, RecursionError):
            parsed = None
        else:
            defined = frozenset(
                n.name
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            )
            imports = tuple(stmt for stmt in tree.body if isinstance(stmt, ast.Import | ast.ImportFrom))
            parsed = ParsedModule(tree, defined, might_backward(module.text), imports)
        with self._lock:
            self._parsed[key] = parsed
            while len(self._parsed) > self.keep:
                self._parsed.popitem(last=False)
        return parsed


PARSED = ParsedModules()


def still_current(read: tuple[Dependency, ...], source: ModuleSource | None) -> bool:
    """Every module a check read still says what it said then."""
    if not read:
        return True
    if source is None:
        return False
    for dependency in read:
        now = source.text(dependency.key)
        if now is None or digest(now) != dependency.digest:
            return False
    return True
