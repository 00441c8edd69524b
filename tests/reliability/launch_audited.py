"""The real server (``errknow-ls serve``) under an audit hook that writes down what it touches.

Installed before anything of errknow_ls is imported: files opened (path and mode), sockets,
processes, code executed (``exec``: the code object's file), modules imported (and from where),
files removed, renamed or created. One JSON object a line, to the file ``ERRKNOW_AUDIT_LOG`` names.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

WATCHED = frozenset(
    {
        "open",
        "exec",
        "import",
        "socket.connect",
        "socket.bind",
        "socket.getaddrinfo",
        "socket.sendto",
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.remove",
        "os.rename",
        "os.rmdir",
        "os.mkdir",
        "os.truncate",
        "os.chmod",
        "os.symlink",
        "os.link",
        "shutil.rmtree",
        "urllib.Request",
        "ctypes.dlopen",
    }
)


def _path(value: Any) -> str | None:
    if isinstance(value, int):
        return None  # a file descriptor already open
    try:
        return os.fsdecode(value)
    except TypeError:
        return repr(value)


def describe(event: str, args: tuple[Any, ...]) -> dict[str, Any]:
    if event == "open":
        path, mode, flags = args
        return {"event": event, "path": _path(path), "mode": mode, "flags": flags}
    if event == "exec":
        code = args[0]
        return {"event": event, "file": getattr(code, "co_filename", repr(code)[:200])}
    if event == "import":
        return {"event": event, "module": args[0], "file": _path(args[1]) if args[1] else None}
    return {"event": event, "args": repr(args)[:300]}


def main() -> int:
    stream = Path(os.environ["ERRKNOW_AUDIT_LOG"]).open("w", encoding="utf-8", buffering=1)  # noqa: SIM115
    lock = threading.Lock()

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event not in WATCHED:
            return
        try:
            line = json.dumps(describe(event, args))
            with lock:
                stream.write(line + "\n")
        except Exception:  # an audit hook that raises would fail the audited operation
            return

    sys.addaudithook(hook)
    from errknow_ls.cli import main as cli  # noqa: PLC0415 (imported under the audit hook, to audit it)

    return cli(["serve"])


if __name__ == "__main__":
    sys.exit(main())
