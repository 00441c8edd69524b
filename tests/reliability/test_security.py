"""What the real server touches, recorded by an audit hook (``launch_audited.py``) over a session
that tempts it: a workspace whose ``.venv`` holds torch's metadata and a ``torch`` package,
``sitecustomize.py``, ``conftest.py``, ``torch/__init__.py`` and records that would leave a marker if run,
a log, a terminal and watched files whose tracebacks name ``/etc/shadow`` and files outside the
workspace, requests on such paths, and a quick fix.

The server must read only the workspace, its records and its own interpreter's files; write no
file; open no socket; start no process; execute and import nothing of the workspace; and publish
nothing on a path outside the workspace. A quick fix edits only the file it fixes.
"""

from __future__ import annotations

import json
import os
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from errknow_ls.kb import builtin_records_dir
from tests.lsp.session import BUGGY, BUGGY_LINE, CALL, column
from tests.reliability import launch_audited
from tests.reliability.wire import Wire, check_probe
from tests.support import REPO

TORCH_VERSION = "2.3.1"
USER_CACHE = "user-cache"
"""The user's cache directory for the server under audit: the one place it may write, hover's
explanation of a record in full (``errknow_ls/lsp/explanations.py``), under ``errknow-ls/explain``."""
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _marker_code(marker: Path) -> str:
    return f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"


def _traceback(*files: str) -> str:
    frames = "".join(f'  File "{name}", line 7, in <module>\n    loss.backward()\n' for name in files)
    return (
        "Traceback (most recent call last):\n"
        + frames
        + "RuntimeError: Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed).\n"
    )


@pytest.fixture
def tempting(tmp_path: Path) -> Path:
    """The workspace (``ws``) and, beside it, ``outside`` with files the server must not read."""
    root = tmp_path / "ws"
    marker = tmp_path / "marker"
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    info = site / f"torch-{TORCH_VERSION}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {TORCH_VERSION}\n")
    for package in (site / "torch", root / "torch"):
        package.mkdir()
        (package / "__init__.py").write_text(_marker_code(marker))
    for name in ("sitecustomize.py", "conftest.py", "setup.py", "usercustomize.py"):
        (root / name).write_text(_marker_code(marker))
    (root / "train.py").write_text(BUGGY, encoding="utf-8")
    records = root / ".errknow" / "records"  # the workspace's own records: data, never code
    records.mkdir(parents=True)
    (records / "evil.json").write_text(json.dumps({"id": f"__import__('os').system('touch {marker}')"}))
    (records / "evil.py").write_text(_marker_code(marker))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(BUGGY, encoding="utf-8")
    (outside / "secret.log").write_text(_traceback(str(outside / "secret.py")), encoding="utf-8")
    (root / "linked.py").symlink_to(outside / "secret.py")  # a cloned repository can hold these
    (root / "linked.log").symlink_to(outside / "secret.log")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    return root


@pytest.fixture
def audited(tmp_path: Path, tempting: Path) -> Iterator[Wire]:
    command = [sys.executable, launch_audited.__file__]
    # Bytecode caches are the interpreter's writes, not the server's: kept out of the record.
    env = {
        "ERRKNOW_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_CACHE_HOME": str(tmp_path / USER_CACHE),
    }
    wire = Wire(tmp_path / "stderr.txt", command=command, cwd=tempting, env=env)
    yield wire
    wire.close()


def _events(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _allowed_roots(workspace: Path) -> list[Path]:
    """The workspace, the records, and the server's own interpreter and installation."""
    roots = {workspace, builtin_records_dir(), REPO / "errknow_ls"}
    roots |= {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    roots |= {Path(p) for p in sysconfig.get_paths().values()}
    return [Path(os.path.realpath(root)) for root in roots]


def _inside(path: str, roots: list[Path], cwd: Path) -> bool:
    real = Path(os.path.realpath(cwd / path))
    return any(real.is_relative_to(root) for root in roots)


def _session(wire: Wire, root: Path) -> None:
    outside = root.parent / "outside"
    train = (root / "train.py").as_uri()
    wire.initialize(root)
    wire.wait_for(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == train
    )
    wire.open(train, BUGGY)
    check_probe(wire, train)
    line = BUGGY.splitlines()[BUGGY_LINE]
    hover = wire.hover(train, BUGGY_LINE, column("utf-16", line, line.index(CALL) + 2))
    assert f"your torch {TORCH_VERSION}" in hover["result"]["contents"]["value"], "read from .venv's metadata"
    _quick_fixes_edit_only(wire, train)

    named = [
        "/etc/shadow",
        str(outside / "secret.py"),
        f"{root}/../outside/secret.py",
        "../outside/secret.py",
    ]
    named += [str(root / "linked.py"), str(root / "linked" / "secret.py")]
    log = (root / "run.log").as_uri()
    wire.open(log, _traceback(*named, str(root / "train.py")), language="log")
    assert wire.pull(log)["result"]["items"], "the log's traceback is shown"
    runtime = [d for d in wire.pull(train)["result"]["items"] if "raised here" in d["message"]]
    assert runtime, "the frame in the workspace is found"
    wire.notify("errknow/terminalOutput", {"text": _traceback(*named), "cwd": "/etc", "source": "term://1"})
    wire.notify(
        "errknow/terminalOutput", {"text": _traceback(*named), "cwd": str(root), "source": "term://2"}
    )
    changes = [
        "file:///etc/shadow",
        (outside / "secret.log").as_uri(),
        (outside / "secret.py").as_uri(),
        f"{root.as_uri()}/../outside/secret.log",
        f"{root.as_uri()}/%2E%2E/outside/secret.py",
        (root / "linked.log").as_uri(),
        (root / "linked.py").as_uri(),
        (root / "linked" / "secret.log").as_uri(),
        (root / "linked" / "secret.py").as_uri(),
    ]
    wire.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 2} for uri in changes]})
    for uri in [
        "file:///etc/shadow",
        (outside / "secret.py").as_uri(),
        f"{root.as_uri()}/../outside/secret.py",
    ]:
        wire.hover(uri, 0, 0)
        wire.pull(uri)
        where = {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}
        wire.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": where, "context": {"diagnostics": []}},
        )
        wire.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    wire.request(
        "workspace/executeCommand", {"command": "errknow.explain", "arguments": [_traceback(*named)]}
    )
    wire.request("workspace/diagnostic", {"previousResultIds": []})
    assert wire.shutdown_and_exit() == 0


def _quick_fixes_edit_only(wire: Wire, uri: str) -> None:
    diagnostics = wire.pull(uri)["result"]["items"]
    params = {
        "textDocument": {"uri": uri},
        "range": diagnostics[0]["range"],
        "context": {"diagnostics": diagnostics},
    }
    actions = wire.request("textDocument/codeAction", params)["result"]
    assert actions, "quick fixes are offered"
    for action in actions:
        changes = action["edit"]["documentChanges"]
        assert {change["textDocument"]["uri"] for change in changes} == {uri}, action["title"]


def test_the_server_reads_only_the_workspace_and_runs_nothing_of_it(
    audited: Wire, tempting: Path, tmp_path: Path
) -> None:
    _session(audited, tempting)
    events = _events(tmp_path)
    assert not (tmp_path / "marker").exists(), "workspace code ran"

    explained = [Path(os.path.realpath(tmp_path / USER_CACHE))]
    roots = [*_allowed_roots(tempting), *explained]
    opened = [e for e in events if e["event"] == "open" and e["path"] is not None]
    read = {Path(e["path"]).name for e in opened}
    assert {"METADATA", "evil.json", "sitecustomize.py"} <= read, "the audit saw the tempting files read"
    assert [e["path"] for e in opened if not _inside(e["path"], roots, tempting)] == []
    written = [e for e in opened if set(e["mode"] or "") & set("wax+") or (e["flags"] or 0) & WRITE_FLAGS]
    explanations = [explained[0] / "errknow-ls" / "explain"]
    assert [e["path"] for e in written if not _inside(e["path"], explanations, tempting)] == []

    forbidden = {"exec", "import", "open"}
    changes = [e for e in events if e["event"] not in forbidden]
    # Making the explanation's folders and renaming it into place, in the user's cache only.
    own = [e for e in changes if e["event"] in {"os.mkdir", "os.rename"} and str(explained[0]) in e["args"]]
    # The process's own symbols, for glibc's `mallopt` (errknow_ls/core/heap.py): no library loaded.
    own += [e for e in changes if e["event"] == "ctypes.dlopen" and e["args"] == "(None,)"]
    own += [e for e in changes if e["event"] == "ctypes.dlsym" and e["args"].endswith("'mallopt')")]
    assert [e for e in changes if e not in own] == [], "no socket, process or file change"
    workspace = str(os.path.realpath(tempting))
    # Code compiled from strings (dataclasses, attrs, cattrs) is named "<...>" or "": not a file.
    ran = [e for e in events if e["event"] == "exec" and Path(e["file"]).is_absolute()]
    assert [
        e["file"] for e in ran if not _inside(e["file"], roots, tempting) or e["file"].startswith(workspace)
    ] == []
    imported = [e for e in events if e["event"] == "import"]
    assert [e for e in imported if e["file"] and os.path.realpath(e["file"]).startswith(workspace)] == []
    assert not [e for e in imported if e["module"] == "torch" or e["module"].startswith("torch.")]


def test_nothing_is_published_on_a_path_outside_the_workspace(audited: Wire, tempting: Path) -> None:
    _session(audited, tempting)
    published = {
        m["params"]["uri"] for m in audited.received if m.get("method") == "textDocument/publishDiagnostics"
    }
    assert published, "the scan published the workspace"
    assert {uri for uri in published if not uri.startswith(tempting.as_uri() + "/") or "/../" in uri} == set()
    assert "outside/secret" not in json.dumps(audited.received), "no message names the outside files"
