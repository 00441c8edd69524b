"""The README's table of records is what ``errknow-ls records list --format markdown`` prints now."""

from __future__ import annotations

import pytest

from errknow_ls.cli import main
from tests.support import assert_readme_table


def test_readme_lists_every_record_with_its_tier(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", "list", "--format", "markdown"]) == 0
    printed = capsys.readouterr().out
    assert_readme_table("records-table", printed, "errknow-ls records list --format markdown")
