"""The prefilter: the words every finding needs. On bytes (what ``check`` reads before it decodes
a file) it may say yes where the text says no, never the other way round."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from errknow_ls.analysis.prefilter import might_backward, might_find
from errknow_ls.project import RuleSelection
from errknow_ls.runner import engine

PIECES = ["backward", "grad(", ".", "(", "_", "x", "é", "\u3000", " ", "\n", "loss", "ö"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("loss.backward()", True),
        ("loss.backward\n", True),
        ("backward(loss)", True),
        ("torch.autograd.grad(loss, x)", True),
        ("grad(y)", True),
        ("loss.backward_hook()", False),
        ("my_backward(x)", False),
        ("autograd_fn(x)", False),
        ("require_grad(x)", False),
        ("xbackward(", False),
        ("", False),
    ],
)
def test_whole_words(text: str, expected: bool) -> None:
    assert might_backward(text) is expected
    assert might_backward(text.encode()) is expected


@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
@example("ébackward(x)")
@example("loss.backwardé")
@example("égrad(x)")
def test_bytes_never_say_no_where_the_text_says_yes(text: str) -> None:
    if might_backward(text):
        assert might_backward(text.encode("utf-8"))


def test_a_file_without_the_words_never_reaches_the_checker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(text: str, **_: object) -> object:
        raise AssertionError("the checker was asked")

    monkeypatch.setattr(engine, "check_source", refuse)
    plain = tmp_path / "plain.py"
    plain.write_text("def backward_hook(m):\n    return m\n", encoding="utf-8")
    (result,) = engine.check_files([engine.FileJob(plain, RuleSelection())])
    assert (result.findings, result.error, result.digest is not None) == ([], None, True)


def test_a_file_that_imports_reaches_the_checker_where_imports_are_followed() -> None:
    """A script without a backward of its own may call a helper of the project that runs one."""
    script = "from steps import step\nfor _ in range(2):\n    step(loss)\n"
    assert not might_backward(script)
    assert might_find(script, follows_imports=True)
    assert might_find(script.encode(), follows_imports=True)
    assert not might_find(script, follows_imports=False)  # a notebook is checked alone
    assert not might_find("x = 1\n", follows_imports=True)
