"""The server's malloc settings: a block the size of a large document's text comes from the heap,
not from pages mapped for it alone (see ``errknow_ls/core/heap.py``). Read off glibc's own account
(``mallinfo2``: ``hblkhd`` is the bytes held in mapped blocks), in a process of its own."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent(
    """
    import ctypes, sys
    from errknow_ls.core.heap import keep_large_blocks_resident

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
            "fordblks", "keepcost")]

    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = MallInfo2
    if sys.argv[1] == "tuned":
        assert keep_large_blocks_resident()
    text = "x" * (20 * 1024 * 1024)  # a 20 MB document's text
    print(libc.mallinfo2().hblkhd)
    """
)


def _mapped_bytes(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_a_large_text_comes_from_the_heap_once_tuned() -> None:
    assert _mapped_bytes("default") >= 20 * 1024 * 1024  # glibc maps a block that large of its own
    assert _mapped_bytes("tuned") < 20 * 1024 * 1024
