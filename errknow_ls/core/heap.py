"""How the server keeps the memory of large texts resident, in one place.

Each edit of a large document makes a new text of its size (Python strings are immutable): a
31 MB document, two or three blocks of 31 MB per edit. glibc's malloc serves blocks that large
with fresh ``mmap`` pages and returns them on ``free``, so every edit faults in tens of thousands
of new pages; on a virtual machine that hands freed pages back to its host, that is most of an
edit's cost (measured through the server on a 1,000,000-line document: 131 ms for one edit's new
text, in a process where the same edit took 7 ms once its pages were resident). Served from the
heap, and the heap's top kept up to a bound rather than trimmed at once, the next edit reuses the
pages the last one freed.
"""

from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameters (malloc.h)."""

MMAP_THRESHOLD = 32 * 1024 * 1024
"""Blocks up to this size come from the heap: glibc's largest allowed value on 64-bit systems."""
TRIM_THRESHOLD = 256 * 1024 * 1024
"""Free memory at the heap's top beyond this is returned to the system."""


def keep_large_blocks_resident() -> bool:
    """Ask glibc's malloc to serve blocks up to MMAP_THRESHOLD from the heap and to keep up to
    TRIM_THRESHOLD of it free; False where there is no glibc (another C library, another system),
    which changes nothing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        # The process's own symbols, the C library's among them: no file opened, nothing run (as
        # ``ctypes.util.find_library`` would run ``ldconfig``).
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
