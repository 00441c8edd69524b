"""The project's own modules for the checker: analysis's ``ModuleSource`` over the project's files.

Imported by whoever checks, on first use (it loads part of the checker): ``errknow_ls.project``
does not import it, so a ``check`` answered by its cache never does.

Names resolve as Python's import system resolves them from the checked file (see
:func:`module_roots`), through :func:`~errknow_ls.project.roots.module_file`; a text is what the
editor shows when the module is open there (``unsaved``), else what the file says on disk.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from errknow_ls.analysis.modules import MAX_MODULE_CHARS, FolderState, LookedIn, ModuleText
from errknow_ls.analysis.summaries import SummaryBacking
from errknow_ls.core.files import FileStamp, read_regular
from errknow_ls.project.roots import folders_deciding, import_roots, module_file

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
"""What marks the root of a project, whose modules import each other from there."""
MAX_MODULE_BYTES = MAX_MODULE_CHARS * 4


class DiskTexts:
    """Modules' texts as files say them, each read again only when its stamp (size, times, inode)
    moved: shared by the checks of one process (the server's, one run of ``check``)."""

    def __init__(self) -> None:
        self._texts: dict[str, tuple[FileStamp, str | None]] = {}
        self._lock = threading.Lock()

    def text(self, key: str) -> str | None:
        """A regular file's UTF-8 text, or None (gone, not regular, too large, not UTF-8)."""
        try:
            stamp = FileStamp.of(Path(key).stat())
        except OSError:
            return None
        with self._lock:
            known = self._texts.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            read = read_regular(key, MAX_MODULE_BYTES)
            text: str | None = read.data.decode("utf-8")
            stamp = read.stamp
        except (OSError, UnicodeDecodeError):
            text = None
        with self._lock:
            self._texts[key] = (stamp, text)
        return text

    def folder_state(self, key: str, names: Iterable[str]) -> FolderState:
        """Which of ``names`` exist in the folder, and its modification time (which moves when an
        entry is made, removed or renamed in it)."""
        try:
            mtime: int | None = os.stat(key).st_mtime_ns  # noqa: PTH116 (strings: asked for every miss)
        except OSError:
            mtime = None
        held = tuple(
            (name, mtime is not None and os.path.exists(os.path.join(key, name)))  # noqa: PTH110, PTH118
            for name in sorted(set(names))
        )
        return FolderState(mtime, held)


DISK = DiskTexts()
"""The texts this process's checks read from disk: a helper imported by many files is read once
(again only when it changes)."""


class ProjectModules:
    """The modules one file of a project imports: found under its import roots (absolute imports)
    or its own package (relative ones), read from ``unsaved`` (an editor's open documents, by
    resolved path) before the disk. The checked file itself is never one of its own modules."""

    def __init__(
        self,
        checked: Path | None,
        roots: Sequence[Path],
        unsaved: Mapping[str, str] | None = None,
        texts: DiskTexts | None = None,
        *,
        summaries: SummaryBacking | None = None,
    ) -> None:
        self.checked = checked
        self.summaries = summaries
        """Where the summaries of the project's functions are kept on disk (None: this process's
        memo alone; see ``errknow_ls.analysis.summaries``)."""
        self.roots = tuple(dict.fromkeys(r for r in roots if r.is_dir()))
        self.unsaved: Mapping[str, str] = unsaved or {}
        self.texts = texts or DISK
        self._found: dict[tuple[str | None, str, int], Path | None] = {}
        """Which file each import found, where it looked, and what each folder held, worked out
        once: one check (one instance) sees one layout of the project, and whether a later check
        may reuse its result is what its recorded reads decide. Texts are read each time."""
        self._looked_in: dict[tuple[str | None, str, int], LookedIn] = {}
        self._folders: dict[tuple[str, tuple[str, ...]], FolderState] = {}

    @classmethod
    def for_file(
        cls,
        path: Path,
        project_roots: Sequence[Path] = (),
        unsaved: Mapping[str, str] | None = None,
        texts: DiskTexts | None = None,
        *,
        summaries: SummaryBacking | None = None,
    ) -> ProjectModules:
        checked = path.resolve()
        return cls(checked, module_roots(checked, project_roots), unsaved, texts, summaries=summaries)

    @property
    def scope(self) -> str:
        return "\0".join([str(self.checked), *map(str, self.roots)])

    def find(self, importer: str | None, name: str, level: int) -> ModuleText | None:
        key = (importer, name, level)
        if key in self._found:
            path = self._found[key]
            module = None if path is None else self._read(path)
            if module is not None or path is None:
                return module
        module = self._find(importer, name, level)
        self._found[key] = None if module is None else Path(module.key)
        return module

    def _find(self, importer: str | None, name: str, level: int) -> ModuleText | None:
        bases = self._bases(importer, name, level)
        if bases is None:
            if not (level and not name):
                return None
            package = self._relative_base(importer, level)  # `from . import x`: the package itself
            if package is None or package / "__init__.py" == self.checked:
                return None
            return self._read(package / "__init__.py")
        for base in bases:
            found = module_file((base,), name)
            if found is not None and found != self.checked:
                module = self._read(found)
                if module is not None:
                    return module
        return None

    def looked_in(self, importer: str | None, name: str, level: int) -> LookedIn:
        key = (importer, name, level)
        if key not in self._looked_in:
            self._looked_in[key] = self._folders_looked_in(importer, name, level)
        return self._looked_in[key]

    def _folders_looked_in(self, importer: str | None, name: str, level: int) -> LookedIn:
        bases = self._bases(importer, name, level)
        if bases is None:
            package = self._relative_base(importer, level) if level else None
            return () if package is None else ((str(package), ("__init__.py",)),)
        return tuple(folders_deciding(bases, name))

    def _bases(self, importer: str | None, name: str, level: int) -> Sequence[Path] | None:
        """Where ``name`` is looked for (None: it names no module below a folder)."""
        if not name:
            return None
        if not level:
            return self.roots
        base = self._relative_base(importer, level)
        return None if base is None else (base,)

    def _relative_base(self, importer: str | None, level: int) -> Path | None:
        """The package a relative import with ``level`` dots starts from."""
        start = Path(importer) if importer is not None else self.checked
        if start is None:
            return None
        return start.parents[level - 1] if level <= len(start.parents) else None

    def text(self, key: str) -> str | None:
        unsaved = self.unsaved.get(key)
        return unsaved if unsaved is not None else self.texts.text(key)

    def folder_state(self, key: str, names: Iterable[str]) -> FolderState:
        asked = (key, tuple(sorted(set(names))))
        if asked not in self._folders:
            self._folders[asked] = self.texts.folder_state(*asked)
        return self._folders[asked]

    def _read(self, path: Path) -> ModuleText | None:
        text = self.text(str(path))
        return None if text is None else ModuleText(str(path), text)


def module_roots(checked: Path, project_roots: Sequence[Path] = ()) -> list[Path]:
    """Where a file's absolute imports are found, in order: its own folder (a script's
    ``sys.path[0]``), the folder above its package (``pkg/sub/mod.py`` imports ``pkg.x``), the
    import roots of the nearest folder holding ``pyproject.toml``, ``setup.py``, ``setup.cfg`` or
    ``.git``, then ``project_roots`` (the configured project's import roots)."""
    folder = checked.parent
    top = folder
    while (top / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    roots = [folder, top]
    marked = next(
        (d for d in (folder, *folder.parents) if any((d / m).exists() for m in PROJECT_MARKERS)), None
    )
    if marked is not None:
        roots += import_roots(marked)
    return [*roots, *project_roots]
