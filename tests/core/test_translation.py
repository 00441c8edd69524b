"""The catalog that turns the checker's English into the reader's language."""

from __future__ import annotations

import pytest

from errknow_ls.core.translation import Catalog, language

CATALOG = Catalog.of(
    [
        (
            "`{tensor}` reaches {what}; {what}'s backward freed it",
            "`{tensor}` 走到了{what}；{what}的反向传播已释放它",  # noqa: RUF001
        ),
        ("the previous iteration", "上一次迭代"),
        ("Detach {shown} at line {line}", "在第 {line} 行 detach {shown}"),
    ]
)


def test_a_template_fills_its_parts_and_translates_those_it_knows() -> None:
    text = "`h` reaches the previous iteration; the previous iteration's backward freed it"
    assert CATALOG.translate(text) == "`h` 走到了上一次迭代；上一次迭代的反向传播已释放它"  # noqa: RUF001


def test_a_part_named_twice_must_say_the_same_both_times() -> None:
    assert CATALOG.find("`h` reaches the previous iteration; the previous call's backward freed it") is None


def test_code_and_numbers_stay_as_written() -> None:
    assert CATALOG.translate("Detach `h`, `c` at line 12") == "在第 12 行 detach `h`, `c`"


def test_text_no_template_matches_whole_is_left_as_it_is() -> None:
    assert CATALOG.find("Detach `h` where it is stored") is None
    assert CATALOG.translate("something else") == "something else"


@pytest.mark.parametrize(
    ("locale", "lang"),
    [
        ("zh", "zh"),
        ("zh-CN", "zh"),
        ("zh_TW", "zh"),
        ("ZH-hant", "zh"),
        ("en-US", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_language_of_a_locale(locale: str | None, lang: str) -> None:
    assert language(locale) == lang
