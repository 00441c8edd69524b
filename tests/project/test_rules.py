"""One resolver of rule selectors for the CLI and the server."""

from __future__ import annotations

from pathlib import Path

from errknow_ls.analysis.registry import RULES
from errknow_ls.project import PerFileIgnores, RuleSelection, Selectors, UnknownSelectors, select_rules

FIRST = RULES[0]


def test_given_replaces_the_project_key_by_key() -> None:
    rules, unknown = select_rules(
        Selectors(select=[FIRST.name]), Selectors(select=["EK"], ignore=[FIRST.code])
    )
    assert rules == RuleSelection(frozenset({FIRST.code}), frozenset({FIRST.code}))
    assert unknown == []


def test_comma_separated_selectors_split() -> None:
    rules, _ = select_rules(Selectors(select=[f"{FIRST.code}, {RULES[1].code}"]), Selectors())
    assert rules.select == frozenset({FIRST.code, RULES[1].code})


def test_unknown_selectors_are_reported_with_their_layer() -> None:
    rules, unknown = select_rules(Selectors(ignore=["nope"]), Selectors(select=["EK999x"]))
    assert unknown == [
        UnknownSelectors("select", given=False, names=("EK999x",)),
        UnknownSelectors("ignore", given=True, names=("nope",)),
    ]
    # A project select naming no rule at all selects every rule; a given one selects none.
    assert rules.select is None
    assert select_rules(Selectors(select=["nope"]), Selectors())[0].select == frozenset()


def test_severity_off_ignores_a_rule_and_unknown_keys_are_reported() -> None:
    rules, unknown = select_rules(Selectors(), Selectors(), {FIRST.name: "off", "bogus": "hint"})
    assert rules.ignored() == frozenset({FIRST.code})
    assert rules.allows(FIRST.code)  # off is a severity, not an ignore: the server drops it
    assert rules.severity_of(FIRST.code, FIRST.name) == "off"
    assert unknown == [UnknownSelectors("severity", given=True, names=("bogus",))]
    assert select_rules(Selectors(), Selectors())[0].ignored() == frozenset()


def test_extend_select_adds_to_either_layers_select() -> None:
    second = RULES[1]
    rules, unknown = select_rules(
        Selectors(select=[FIRST.code]), Selectors(select=["EK"], extend_select=[second.name, "nope"])
    )
    assert rules.select == frozenset({FIRST.code, second.code})
    assert unknown == [UnknownSelectors("extend-select", given=False, names=("nope",))]
    # Without a select every rule is reported: extend-select changes nothing.
    assert select_rules(Selectors(extend_select=[FIRST.code]), Selectors())[0].select is None


def test_per_file_ignores_match_relative_to_the_root_or_by_name(tmp_path: Path) -> None:
    per_file, unknown = PerFileIgnores.resolve(
        tmp_path, {"tests/*.py": [FIRST.code], "conftest.py": [RULES[1].name, "nope"]}
    )
    assert unknown == [("conftest.py", ["nope"])]
    assert per_file.codes_for(tmp_path / "tests" / "test_a.py") == frozenset({FIRST.code})
    assert per_file.codes_for(tmp_path / "src" / "conftest.py") == frozenset({RULES[1].code})
    assert per_file.codes_for(tmp_path / "src" / "a.py") == frozenset()
    rules = per_file.rules_for(tmp_path / "tests" / "test_a.py", RuleSelection())
    assert not rules.allows(FIRST.code)
    assert rules.allows(RULES[1].code)
