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


class RunLayout:
    """What the file system said to the imports of one check, or of one run of ``check`` (see
    ``FileJob.run``): which file a name is found as below a folder, which folders decide where a
    name is looked for, what a folder held. One check, or one run, sees one layout of the
    project: it asks each of these once."""

    def __init__(self) -> None:
        self._files: dict[tuple[Path, str], Path | None] = {}
        self._deciding: dict[tuple[tuple[Path, ...], str], LookedIn] = {}
        self._folders: dict[tuple[str, tuple[str, ...]], FolderState] = {}

    def module_file(self, base: Path, name: str) -> Path | None:
        asked = (base, name)
        if asked not in self._files:
            self._files[asked] = module_file((base,), name)
        return self._files[asked]

    def folders_deciding(self, bases: Sequence[Path], name: str) -> LookedIn:
        asked = (tuple(bases), name)
        if asked not in self._deciding:
            self._deciding[asked] = tuple(folders_deciding(bases, name))
        return self._deciding[asked]

    def folder_state(self, texts: DiskTexts, key: str, names: tuple[str, ...]) -> FolderState:
        asked = (key, names)
        if asked not in self._folders:
            self._folders[asked] = texts.folder_state(key, names)
        return self._folders[asked]


_RUN_LAYOUT: list[tuple[str, RunLayout]] = []
_RUN_LAYOUT_LOCK = threading.Lock()


def run_layout(run: str) -> RunLayout:
    """The layout of ``run``: only the latest run's is kept."""
    with _RUN_LAYOUT_LOCK:
        if not _RUN_LAYOUT or _RUN_LAYOUT[0][0] != run:
            _RUN_LAYOUT[:] = [(run, RunLayout())]
        return _RUN_LAYOUT[0][1]


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
        run: str | None = None,
    ) -> None:
        self.checked = checked
        self.unsaved: Mapping[str, str] = unsaved or {}
        self.run = run if not self.unsaved else None
        """The run of ``check`` this file is checked in (None: a check of its own, the server's,
        or one that reads unsaved texts)."""
        self.summaries = summaries
        """Where the summaries of the project's functions are kept on disk (None: this process's
        memo alone; see ``errknow_ls.analysis.summaries``)."""
        self.roots = tuple(dict.fromkeys(r for r in roots if r.is_dir()))
        self.texts = texts or DISK
        self._found: dict[tuple[str | None, str, int], Path | None] = {}
        """Which file each import found, where it looked, and what each folder held, worked out
        once: one check (one instance) sees one layout of the project, and whether a later check
        may reuse its result is what its recorded reads decide. Texts are read each time."""
        self._looked_in: dict[tuple[str | None, str, int], LookedIn] = {}
        self._layout = RunLayout() if self.run is None else run_layout(self.run)
        """What the file system said to this check's finds: its own, or its run's."""
        self._passed: set[tuple[str | None, str, int]] = set()
        self.passed_over = 0
        """How many finds passed over the checked file (it is never one of its own modules), each
        time such a find was asked: where none did, what the finds gave holds for any file."""

    @classmethod
    def for_file(
        cls,
        path: Path,
        project_roots: Sequence[Path] = (),
        unsaved: Mapping[str, str] | None = None,
        texts: DiskTexts | None = None,
        *,
        summaries: SummaryBacking | None = None,
        run: str | None = None,
    ) -> ProjectModules:
        checked = path.resolve()
        roots = module_roots(checked, project_roots)
        return cls(checked, roots, unsaved, texts, summaries=summaries, run=run)

    @property
    def scope(self) -> str:
        return "\0".join([str(self.checked), *map(str, self.roots)])

    @property
    def layout(self) -> tuple[str, ...] | None:
        """One run's import roots: the checks of a run's files see one layout of the project, so
        those with the same roots find the same modules (the checked file aside)."""
        return None if self.run is None else (self.run, *map(str, self.roots))

    @property
    def checked_key(self) -> str | None:
        return None if self.checked is None else str(self.checked)

    def find(self, importer: str | None, name: str, level: int) -> ModuleText | None:
        key = (importer, name, level)
        if key in self._passed:
            self.passed_over += 1
        if key in self._found:
            path = self._found[key]
            module = None if path is None else self._read(path)
            if module is not None or path is None:
                return module
        passed = self.passed_over
        module = self._find(importer, name, level)
        if self.passed_over != passed:
            self._passed.add(key)
        self._found[key] = None if module is None else Path(module.key)
        return module

    def _find(self, importer: str | None, name: str, level: int) -> ModuleText | None:
        bases = self._bases(importer, name, level)
        if bases is None:
            if not (level and not name):
                return None
            package = self._relative_base(importer, level)  # `from . import x`: the package itself
            if package is None:
                return None
            if package / "__init__.py" == self.checked:
                self.passed_over += 1
                return None
            return self._read(package / "__init__.py")
        for base in bases:
            found = self._layout.module_file(base, name)
            if found is not None and found == self.checked:
                self.passed_over += 1
            elif found is not None and (module := self._read(found)) is not None:
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
        return self._layout.folders_deciding(bases, name)

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
        return self._layout.folder_state(self.texts, key, tuple(sorted(set(names))))

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
