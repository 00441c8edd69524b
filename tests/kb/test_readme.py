"""The README's table of records is what ``errknow-ls records list --format markdown`` prints now."""

from __future__ import annotations

import pytest

from errknow_ls.cli import main
from tests.support import REPO

START, END = "<!-- records-table:start -->\n", "<!-- records-table:end -->"


def test_readme_lists_every_record_with_its_tier(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert START in readme and END in readme
    table = readme.split(START, 1)[1].split(END, 1)[0]
    assert main(["records", "list", "--format", "markdown"]) == 0
    assert table == capsys.readouterr().out, (
        "regenerate the README table with: errknow-ls records list --format markdown"
    )
