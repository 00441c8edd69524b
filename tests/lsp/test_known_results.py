"""On opening a document, what ``check`` left in the project's results cache is served before the
server's own first check, which then confirms or replaces it: once per editor profile, over stdio.

The cache is made by the real ``errknow-ls check`` in the workspace; an entry is then altered so
that what came from the cache and what came from the check can be told apart.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.lsp.session import BUGGY, Session

REMEMBERED = "as the results cache remembers it"


def check_with_the_cli(root: Path, name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "errknow_ls", "check", name],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # it found the finding
    assert list(root.glob(".errknow_cache/*/*.json")), "check wrote no cache"


def alter_entries(root: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """``change`` each entry as written, and what it read (``read``: ``[key, what it said]`` pairs,
    which the file keeps in its table of reads) where it sets it."""
    (path,) = root.glob(".errknow_cache/*/*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    for digest, (text, reads) in data["results"].items():
        entry = json.loads(text)
        change(entry)
        read = entry.pop("read", None)
        if read is None:
            data["results"][digest] = [json.dumps(entry), reads]
            continue
        first = len(data["read"])
        data["read"] += [[key, said, -1, -1, -1, -1] for key, said in read]
        data["results"][digest] = [json.dumps(entry), list(range(first, len(data["read"])))]
    path.write_text(json.dumps(data), encoding="utf-8")


def remembered_otherwise(entry: dict[str, Any]) -> None:
    for finding in entry["findings"]:
        finding["message"] = REMEMBERED


def messages(diagnostics: list[types.Diagnostic]) -> list[str]:
    return [d.message for d in diagnostics]


async def served_then_checked(session: Session, uri: str) -> tuple[list[str], list[str]]:
    """The messages the editor showed first, and once the check was done. A client that pulls and
    cannot be asked to pull again (Neovim 0.11) waits for the check."""
    if session.pulls and not session.pulls_workspace:
        shown = messages(await session.pull(uri))
        return shown, shown
    if session.pulls:
        first = messages(await session.pull(uri))
        await session.refreshed()  # the check found otherwise: pull again
        return first, messages(await session.pull(uri))
    last = await session.published_for(uri, lambda p: p.version == 1 and REMEMBERED not in str(p))
    earliest = next(p for p in session.published if p.uri == uri)
    return messages(list(earliest.diagnostics)), messages(list(last.diagnostics))


async def test_what_check_cached_is_served_first_and_replaced_by_the_check(session: Session) -> None:
    (session.root / "train.py").write_text(BUGGY, encoding="utf-8")
    check_with_the_cli(session.root, "train.py")
    alter_entries(session.root, remembered_otherwise)
    await session.start()
    uri = session.open("train.py", BUGGY)
    first, checked = await served_then_checked(session, uri)
    replaceable = not session.pulls or session.pulls_workspace
    assert (first == [REMEMBERED]) == replaceable
    (message,) = checked
    assert "`loss` is backwarded a second time" in message


async def test_an_entry_whose_module_changed_since_is_not_served(session: Session) -> None:
    """The entry says the check read a module that says something else now: it does not stand."""
    (session.root / "helpers.py").write_text("SCALE = 2\n", encoding="utf-8")
    (session.root / "train.py").write_text(BUGGY, encoding="utf-8")
    check_with_the_cli(session.root, "train.py")

    def read_a_module_since_changed(entry: dict[str, Any]) -> None:
        remembered_otherwise(entry)
        entry["read"] = [[str((session.root / "helpers.py").resolve()), "0" * 40]]

    alter_entries(session.root, read_a_module_since_changed)
    await session.start()
    uri = session.open("train.py", BUGGY)
    shown = await session.diagnostics(uri)
    assert REMEMBERED not in messages(shown) and len(shown) == 1
    assert all(REMEMBERED not in str(p) for p in session.published)
