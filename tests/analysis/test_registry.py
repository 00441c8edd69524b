"""A rule's identity lives in the registry; everything else derives from it, and every second pass
the interpreter observes is claimed by exactly one rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from errknow_ls.analysis.checker import observe
from errknow_ls.analysis.registry import BY_NAME, RULES
from errknow_ls.analysis.rules import OBSERVATION_RULES, RULE_MODULES
from errknow_ls.cli import main
from tests.analysis.test_programs import KNOWN_GAPS, PROGRAMS
from tests.support import REPO, assert_readme_table

BUGGY = sorted((PROGRAMS / "buggy").glob("*.py"))
LABEL = re.compile(r"# error: \[(?P<rule>[a-z0-9-]+)\]")
FIXTURES = sorted(
    p for p in (REPO / "tests" / "analysis" / "fixtures").rglob("*.py") if "negatives" not in p.parts
)


def test_every_rule_in_the_registry_has_one_module_and_back() -> None:
    assert sorted(m.CODE for m in RULE_MODULES) == sorted(r.code for r in RULES)
    assert len({r.priority for r in RULES}) == len(RULES), "priorities decide: no two alike"


def test_the_readme_table_of_rules_is_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "--all", "--output-format", "markdown"]) == 0
    printed = capsys.readouterr().out
    assert_readme_table("rules-table", printed, "errknow-ls rule --all --output-format markdown")


@pytest.mark.parametrize("path", BUGGY + FIXTURES, ids=lambda p: str(Path(p).relative_to(REPO)))
def test_each_second_pass_is_one_rules_own(path: Path) -> None:
    events = observe(path.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    raising = [name for name in LABEL.findall(text) if BY_NAME[name].raises]
    gap = path.is_relative_to(PROGRAMS) and str(path.relative_to(PROGRAMS)) in KNOWN_GAPS
    assert events or not raising or gap, "the raising second pass the label names is observed"
    for event in events:
        owners = [m.CODE for m in OBSERVATION_RULES if m.claims(event)]
        assert len(owners) == 1, f"line {event.site.lineno}: claimed by {owners or 'no rule'}"
