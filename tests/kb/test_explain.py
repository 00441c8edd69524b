"""The rendered explanation's "Related errors" section."""

from __future__ import annotations

from errknow_ls.kb import Record
from errknow_ls.kb.explain import Context, render
from tests.support import SHIPPED_FILE, read_json


def _with_graph(**graph: list[str]) -> Record:
    data = read_json(SHIPPED_FILE)
    data["transition_graph"] = graph
    return Record.model_validate(data)


def _related_lines(markdown: str) -> list[str]:
    section = markdown.split("Related errors:\n", 1)[1]
    return section.split("\n\n", 1)[0].splitlines()


def test_a_record_named_under_two_relations_is_listed_once_where_it_first_appears() -> None:
    record = _with_graph(
        frequently_confused_with=["test/b", "test/a"],
        leads_to=["test/a", "test/c", "test/b"],
        preceded_by=["test/c", "test/d"],
    )
    long = "RuntimeError: A failed (or something near it). Here is why, at length."
    markdown = render(record, Context(related={"test/a": long}), "en")
    # A neighbour is named by its message's first clause, not quoted whole.
    assert _related_lines(markdown) == [
        "- `test/b`",
        "- `test/a`: RuntimeError: A failed",
        "- `test/c`",
        "- `test/d`",
    ]


def test_no_related_section_without_neighbours() -> None:
    assert "Related errors" not in render(_with_graph(), Context(), "en")


def test_a_fix_measured_on_some_reproductions_says_where_it_applies_and_how_it_fares_there() -> None:
    text = render(Record.model_validate(read_json(SHIPPED_FILE)), Context(), "en")
    do = text.split("**What to do**", 1)[1]
    assert "1. Detach state carried" in do and "(applies to 3 of 5 reproductions; runs clean in 3 of 3)" in do
    assert "(applies to 1 of 5 reproductions; runs clean in 1 of 1)" in do
    assert "retain_graph=True to every backward()" in do.split("\n4. ", 1)[1]  # ranked last: 1 of 5
    assert "(runs clean in 1 of 5 reproductions)" in do  # meant for every variant: no "applies to"
    zh = render(Record.model_validate(read_json(SHIPPED_FILE)), Context(), "zh")
    assert "适用于 5 个复现中的 3 个；其中 3 个修复后正常运行" in zh  # noqa: RUF001
