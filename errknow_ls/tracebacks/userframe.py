"""Which frame is the user's own code: the innermost one outside libraries and the standard library.

Printed paths come from other machines, containers and operating systems, so the test is on the
shape of the path (``site-packages``, ``/lib/python3.11/``, ``\\Lib\\``), with this interpreter's own
library directories as a further hint.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from collections.abc import Sequence
from functools import cache

from errknow_ls.tracebacks.model import Frame

_LIBRARY_PATH = re.compile(
    r"""[\\/](?:site|dist)-packages[\\/]
      | [\\/]lib(?:64)?[\\/](?:pypy|python)\d+(?:\.\d+)?[\\/]   # /usr/lib/python3.11/, /lib/python3.10/
      | [\\/]Lib[\\/]                                          # C:\Python311\Lib\threading.py
      | [\\/]python\d+\.zip[\\/]                               # embedded / zipped stdlib
      | [\\/]\.pex[\\/] | [\\/]__pypackages__[\\/]
    """,
    re.VERBOSE,
)
_IPYTHON_INPUT = re.compile(r"^<ipython-input-\d+-[0-9a-f]+>$")


@cache
def _interpreter_library_dirs() -> tuple[str, ...]:
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    paths = {sysconfig.get_paths().get(name, "") for name in names}
    return tuple(sorted(path.rstrip("/\\") + "/" for path in paths if path))


def is_user_file(file: str) -> bool:
    """Whether ``file``, as printed in a traceback, is the user's code rather than a library's."""
    if file.startswith("Cell In[") or _IPYTHON_INPUT.match(file):
        return True
    if not file or file.startswith("<"):  # <frozen runpy>, <string>, <stdin>, <unknown>
        return False
    if _LIBRARY_PATH.search(file):
        return False
    if file.startswith(_interpreter_library_dirs()):
        return False
    if "/" not in file and "\\" not in file:
        # A bare file name, as embedded interpreters print the stdlib: threading.py, runpy.py.
        stem = file.rsplit(".", 1)[0]
        return stem not in sys.stdlib_module_names
    return True


def user_frame(frames: Sequence[Frame]) -> Frame | None:
    """The innermost frame in user code, or None when every frame is a library's."""
    for frame in reversed(frames):
        if is_user_file(frame.file):
            return frame
    return None
