"""One resolver of rule selectors for the CLI and the server."""

from __future__ import annotations

from errknow_ls.analysis.registry import RULES
from errknow_ls.project import RuleSelection, Selectors, UnknownSelectors, select_rules

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
