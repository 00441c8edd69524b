"""What the results cache that ``check`` shares already knows of a document: published when the
document opens, before the server's own first check of it, which then confirms or replaces it.

The cache is the project's (``errknow_ls.project.results_cache``): the same directory, key and
entries as ``check``. An entry stands for a text by the hash of its bytes, under the rules of the
key; one that read the project's modules stands only while they (the open documents' texts first)
still say the same.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from pygls.uris import to_fs_path

from errknow_ls.lsp.checking import Analyzer, Result
from errknow_ls.lsp.snapshots import Snapshot
from errknow_ls.project.results_cache import (
    CacheContents,
    cache_file,
    cache_key,
    checker_fingerprint,
    read_cache_file,
    text_digest,
)

log = logging.getLogger(__name__)
CacheDirectories = Callable[[str], Path | None]
"""A document's results cache directory (its project's); None outside every project."""


class KnownResults:
    """The project's results caches, each read once (in a worker thread) when first asked."""

    def __init__(self) -> None:
        self.directories: CacheDirectories = lambda _uri: None
        self._fingerprint: str | None = None
        self._files: dict[Path, CacheContents] = {}
        self._lock = threading.Lock()

    def lookup(self, analyzer: Analyzer, snapshot: Snapshot) -> list[Result]:
        """The results the cache holds for ``snapshot``, as a check here would give them; none when
        it holds nothing for its text, or what that entry read has changed since."""
        if snapshot.notebook or len(snapshot.parts) != 1 or snapshot.version is None:
            return []  # a notebook's cells are checked as one program: ``check`` keeps no such entry
        part = snapshot.parts[0]
        directory = self.directories(part.uri)
        if directory is None or not part.uri.startswith("file:") or not to_fs_path(part.uri):
            return []
        try:
            digest = text_digest(part.text)
        except UnicodeEncodeError:
            return []
        entry = self._contents(directory, analyzer, part.uri).entry(digest)
        if entry is None or entry.cells or not _still_read_the_same(entry.read, snapshot):
            return []
        return [analyzer.result_of(part, entry.findings, entry.errors)]

    def _contents(self, directory: Path, analyzer: Analyzer, uri: str) -> CacheContents:
        with self._lock:
            if self._fingerprint is None:
                self._fingerprint = checker_fingerprint()
            key = cache_key(analyzer.rules(uri), self._fingerprint)
            path = cache_file(directory, key)
            if path not in self._files:
                self._files[path] = read_cache_file(path, key)
                if self._files[path].problem:
                    log.warning("%s", self._files[path].problem)
            return self._files[path]


def _still_read_the_same(read: list[tuple[str, str]], snapshot: Snapshot) -> bool:
    if not read:
        return True
    # Only entries that read modules load these (they load part of the checker).
    from errknow_ls.analysis.modules import says_the_same  # noqa: PLC0415
    from errknow_ls.project.modules import ProjectModules  # noqa: PLC0415

    now = ProjectModules(None, (), snapshot.unsaved)
    return all(says_the_same(now, key, then) for key, then in read)
