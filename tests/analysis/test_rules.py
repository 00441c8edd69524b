"""Every fixture file: findings exactly on the `# error: [rule]` lines, with that rule, and nowhere else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from errknow_ls.analysis import RULES, check_source
from errknow_ls.analysis.registry import BY_NAME, resolve
from errknow_ls.analysis.rules import RULE_MODULES, documentation
from errknow_ls.kb import KnowledgeBase

FIXTURES = Path(__file__).parent / "fixtures"
ERROR = re.compile(r"#\s*error:\s*\[([a-z-]+)\]")
FILES = sorted(FIXTURES.rglob("*.py"))


def _expected(text: str) -> dict[int, str]:
    return {
        number: BY_NAME[match.group(1)].code
        for number, line in enumerate(text.splitlines(), 1)
        if (match := ERROR.search(line))
    }


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_findings_are_exactly_the_labelled_lines(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = check_source(text)
    found = {f.span.start.line + 1: f.code for f in result.findings}
    assert result.errors == []
    assert found == _expected(text)


def test_the_corpus_covers_every_rule() -> None:
    labelled = {code for path in FILES for code in _expected(path.read_text(encoding="utf-8")).values()}
    assert labelled == {rule.code for rule in RULES}


def test_codes_and_names_are_unique_and_records_exist() -> None:
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)
    kb = KnowledgeBase.load()
    assert all(rule.record_id in kb for rule in RULES)


@pytest.mark.parametrize("module", RULE_MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_every_rule_is_documented_under_the_fixed_headings(module: object) -> None:
    doc = documentation(module.CODE)  # type: ignore[attr-defined]
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "References"):
        assert f"### {heading}" in doc


def test_selectors_accept_codes_prefixes_and_names() -> None:
    assert [r.code for r in resolve("EK001")] == ["EK001"]
    assert [r.code for r in resolve("double-backward")] == ["EK001"]
    assert len(resolve("EK")) == len(RULES)
    assert resolve("XYZ") == []


BROKEN = """\
import torch
from torch import nn


def train():
    model = nn.Linear(4, 2)
    loss = model(torch.randn(3, 4)).pow(2).sum()
    loss.backward()
    loss.backward()


def half_typed(model, x):
    out = model(x
"""


def test_a_file_that_does_not_parse_still_reports_its_parsed_definitions() -> None:
    result = check_source(BROKEN)
    assert result.errors and "line" in result.errors[0]
    assert [(f.code, f.span.start.line + 1) for f in result.findings] == [("EK001", 9)]


def test_a_file_without_backward_is_not_even_parsed() -> None:
    result = check_source("def f(:\n")
    assert result.findings == [] and result.errors == []


@pytest.mark.parametrize(
    "suffix",
    ["  # errknow: ignore[EK001]", "  # errknow: ignore", "  # noqa: EK001", "  # noqa: double-backward"],
)
def test_suppression_comments(suffix: str) -> None:
    text = BROKEN.replace("    loss.backward()\n\n\n", f"    loss.backward(){suffix}\n\n\n")
    assert check_source(text).findings == []


def test_noqa_for_another_code_does_not_suppress() -> None:
    text = BROKEN.replace("    loss.backward()\n\n\n", "    loss.backward()  # noqa: E501\n\n\n")
    assert [f.code for f in check_source(text).findings] == ["EK001"]


def test_select_and_ignore() -> None:
    assert check_source(BROKEN, select={"EK002"}).findings == []
    assert check_source(BROKEN, ignore={"EK001"}).findings == []


def test_columns_are_code_points_on_lines_with_cjk_and_emoji() -> None:
    text = BROKEN.replace("    loss.backward()\n\n\n", '    s = "é😋"; loss.backward()\n\n\n')
    (finding,) = check_source(text).findings
    line = text.splitlines()[finding.span.start.line]
    assert line[finding.span.start.character :].startswith("loss.backward()")
    assert line[finding.span.start.character : finding.span.end.character] == "loss.backward()"


def test_a_graph_made_and_freed_on_a_loop_s_last_iteration_is_shared_with_the_loss_after_it() -> None:
    """The critic loop's last fakes, backwarded by its last critic loss, scored again after the
    loop: two losses share that graph (nothing is carried into an iteration), and the fix is the
    critic's own detach of the fakes."""
    path = FIXTURES / "shared-graph-backward" / "graph_of_an_ended_loop.py"
    (finding,) = check_source(path.read_text(encoding="utf-8")).findings
    assert finding.message == (
        "`generator_loss` shares a graph through `fakes` with `critic_loss`, whose backward at line 14 "
        "already freed it"
    )
    assert [fix.title for fix in finding.fixes] == ["Detach `fakes` in the first loss (`fakes.detach()`)"]


def test_a_graph_made_by_an_in_place_statement_is_placed_at_that_statement() -> None:
    """``scale *= w`` is a statement, not an expression: the node it makes keeps its line (the
    message said ``before the loop at line 0``)."""
    path = FIXTURES / "pre-loop-graph-backward" / "scale_updated_in_place_before_loop.py"
    (finding,) = check_source(path.read_text(encoding="utf-8")).findings
    assert finding.message.startswith("`loss` reaches a graph built once, before the loop at line 10:")
