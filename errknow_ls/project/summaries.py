"""The summaries of the project's functions kept on disk, beside the results cache (the same
directory, for ``check`` and the server): one JSON file per module text, by its hash, under a
folder of the checker's version and a hash of its sources (a summary says what this checker's
interpreter does with the function). What a summary is: ``errknow_ls.analysis.summaries``.

A file that does not parse is ignored (its summaries are worked out again); a write goes to a
temporary file renamed over the old one, with what the file held merged in, so processes that
check at once (a pool of workers, ``check`` beside the server) lose at most work, never a file.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from errknow_ls import __version__
from errknow_ls.core.files import MIB, UnreadableFile, read_regular
from errknow_ls.project.results_cache import checker_fingerprint, make_cache_directory, write_atomically

MAX_SUMMARY_FILE_BYTES = 16 * MIB


class DiskSummaries:
    """The summaries under one cache directory (a :class:`~errknow_ls.analysis.summaries.SummaryBacking`)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.folder = directory / __version__ / "summaries" / _fingerprint()[:20]

    def load(self, module_digest: str) -> dict[str, str]:
        try:
            data = json.loads(read_regular(self._file(module_digest), MAX_SUMMARY_FILE_BYTES).data)
        except (UnreadableFile, OSError, ValueError, RecursionError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def save(self, module_digest: str, summaries: dict[str, str]) -> None:
        kept = self.load(module_digest) | summaries
        try:
            make_cache_directory(self.directory)
            write_atomically(self._file(module_digest), json.dumps(kept, separators=(",", ":")).encode())
        except OSError:
            pass  # a cache that cannot be written costs work next time, nothing else

    def _file(self, module_digest: str) -> Path:
        return self.folder / f"{module_digest}.json"


@cache
def _fingerprint() -> str:
    return checker_fingerprint()


@cache
def disk_summaries(directory: Path) -> DiskSummaries:
    """The one store of ``directory`` in this process (its summaries read once per module)."""
    return DiskSummaries(directory.resolve())
