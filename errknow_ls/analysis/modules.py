"""The project's own modules, as the checker reads them: what an import names, found and parsed.

The checker does not look for files itself: whoever checks (the CLI, the server) hands it a
:data:`ModuleSource` that knows the project's roots and the texts of its modules (an editor's
unsaved buffers included). A module it cannot find stays unknown, as every installed library does.
"""

from __future__ import annotations

import ast
import hashlib
import stat
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from errknow_ls.analysis.chunks import PARSE_ERRORS


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


class ParsedModules:
    """Syntax trees of the project's modules by the hash of their text, the most recent kept:
    shared by every check in a process (a helper module imported by fifty files is parsed once)."""

    def __init__(self, keep: int = 256) -> None:
        self.keep = keep
        self._trees: OrderedDict[str, ast.Module | None] = OrderedDict()
        self._lock = threading.Lock()

    def parse(self, module: ModuleText) -> ast.Module | None:
        """The module's tree, or None when it does not parse or is too large to read."""
        if len(module.text) > MAX_MODULE_CHARS:
            return None
        key = digest(module.text)
        with self._lock:
            if key in self._trees:
                self._trees.move_to_end(key)
                return self._trees[key]
        try:
            tree: ast.Module | None = ast.parse(module.text)
        except (*PARSE_ERRORS, RecursionError):
            tree = None
        with self._lock:
            self._trees[key] = tree
            while len(self._trees) > self.keep:
                self._trees.popitem(last=False)
        return tree


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


class FileModules:
    """The project's modules as files under its import roots (the checked file's folder, the
    project's root, its ``src/``), read as Python's import system would find them. Only regular
    files are read, up to :data:`MAX_MODULE_CHARS`; a text already read is not read again while its
    size and modification time stay the same."""

    def __init__(self, checked: Path | None, roots: Sequence[Path]) -> None:
        self.checked = checked
        self.roots = tuple(dict.fromkeys(r for r in roots if r.is_dir()))
        self._texts: dict[str, tuple[tuple[int, int], str | None]] = {}

    @property
    def scope(self) -> str:
        return "\0".join([str(self.checked), *map(str, self.roots)])

    def find(self, importer: str | None, name: str, level: int) -> ModuleText | None:
        parts = [p for p in name.split(".") if p]
        if level:
            start = Path(importer) if importer is not None else self.checked
            if start is None:
                return None
            base = start.parent
            for _ in range(level - 1):
                base = base.parent
            bases: Sequence[Path] = (base,)
        else:
            bases = self.roots
        if not parts and not level:
            return None
        for base in bases:
            folder = base.joinpath(*parts)
            for path in (folder.with_suffix(".py") if parts else None, folder / "__init__.py"):
                if path is None or (self.checked is not None and path == self.checked):
                    continue
                text = self.text(str(path))
                if text is not None:
                    return ModuleText(str(path), text)
        return None

    def text(self, key: str) -> str | None:
        try:
            info = Path(key).stat()
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_MODULE_CHARS * 4:
            return None
        stamp = (info.st_mtime_ns, info.st_size)
        known = self._texts.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            with Path(key).open("rb") as handle:
                data = handle.read(MAX_MODULE_CHARS * 4 + 1)
            text: str | None = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        self._texts[key] = (stamp, text)
        return text

    @classmethod
    def for_file(cls, path: Path, extra_roots: Sequence[Path] = ()) -> FileModules:
        """The modules a file of a project can import: from its own folder (a script's
        ``sys.path[0]``), from above its package (``pkg/sub/mod.py`` imports ``pkg.x``), from the
        nearest folder that holds ``pyproject.toml``, ``setup.py`` or ``.git`` and its ``src/``,
        and from ``extra_roots`` (the project's configured root)."""
        checked = path.resolve()
        folder = checked.parent
        top = folder
        while (top / "__init__.py").is_file() and top.parent != top:
            top = top.parent
        roots = [folder, top]
        for directory in (folder, *folder.parents):
            if any((directory / marker).exists() for marker in PROJECT_MARKERS):
                roots += [directory, directory / "src"]
                break
        for root in extra_roots:
            roots += [root, root / "src"]
        return cls(checked, roots)


PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
"""What marks the root of a project, whose modules import each other from there."""
