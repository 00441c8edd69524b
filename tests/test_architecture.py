"""The map for newcomers stays true: no import cycle, and every file the architecture page and
the contributing guide name exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import import_cycles
from tests.support import REPO

PAGES = [REPO / "docs" / "ARCHITECTURE.md", REPO / "CONTRIBUTING.md"]
NAMED_PATH = re.compile(r"`((?:errknow_ls|tests|records|editors|docs|benchmarks)/[^`<>* ]*)`")
NAMED_IN_PATH = re.compile(r"`(\w+)`\s+(?:in\s+|from\s+|\()`((?:errknow_ls|tests)/[^`<>* ]*\.py)`")
"""``name`` in ``path``: a recipe's claim that a file defines or holds a name."""


def test_no_import_cycle_among_the_package_modules() -> None:
    assert import_cycles.cycles() == []


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("def f():\n    from pkg import b\n", encoding="utf-8")
    (package / "b.py").write_text("from pkg.a import f\n", encoding="utf-8")
    (package / "c.py").write_text("from . import a\n", encoding="utf-8")
    assert import_cycles.cycles(package) == [["pkg.a", "pkg.b"]]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_named_file_exists(page: Path) -> None:
    named = NAMED_PATH.findall(page.read_text(encoding="utf-8"))
    assert len(named) > 5
    missing = [path for path in named if not (REPO / path).exists()]
    assert missing == []


def test_every_name_said_to_be_in_a_file_is_there() -> None:
    claims = NAMED_IN_PATH.findall(PAGES[0].read_text(encoding="utf-8"))
    assert len(claims) > 3
    wrong = [
        (name, path)
        for name, path in claims
        if not re.search(rf"\b{name}\b", (REPO / path).read_text(encoding="utf-8"))
    ]
    assert wrong == []
