"""The hover of every finding the rules make on the fixture files and the buggy programs, in English
and Chinese: it leads with the finding, then the fix the quick-fix menu prefers (titled as the menu
titles it), then why this pattern raises, then the other fixes with their rates, all under 1,200
characters before the rule's documentation, saying the exception once; and in Chinese, no English
sentence anywhere a person reads (message, related places, fix titles, hover, rule documentation)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from lsprotocol import types

from errknow_ls.analysis import RULES, check_source
from errknow_ls.analysis.rules import documentation, localized, why
from errknow_ls.analysis.rules.evidence import proven_by
from errknow_ls.core import Applicability, Finding
from errknow_ls.kb import KnowledgeBase
from errknow_ls.kb.explain import LABELS, rate_text
from errknow_ls.lsp import actions
from errknow_ls.lsp.handlers.hover import SEPARATOR, hover_text
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from tests.lsp.session import Session
from tests.lsp.test_runtime_lifetime import STEP, STEP_LINE, run_output
from tests.lsp.test_watching import (
    BARE_LOG,
    CAPTURE,
    MESSAGE_LINE,
    open_log,
    shown,
    traceback,
    workspace_source,
)
from tests.lsp.test_watching import hover_text as watching_hover
from tests.support import IDENTIFIERS, english_left

ANALYSIS = Path(__file__).parents[1] / "analysis"
FILES = sorted([*(ANALYSIS / "fixtures").rglob("*.py"), *(ANALYSIS / "programs" / "buggy").rglob("*.py")])
LEAD_CHARS = 1200
EXCEPTION = "Trying to backward through the graph a second time"


def as_read(markdown: str) -> str:
    """``markdown`` as an editor shows it: a link's target is not on screen (VS Code, Neovim's float)."""
    return re.sub(r"\]\([^)]*\)", "]", markdown)


def rest_uri(record_id: str) -> str:
    """Where a user's cache puts the whole record: a long path, so that the length is measured with it."""
    return f"file:///home/a-rather-long-user-name/.cache/errknow-ls/explain/0123456789abcdef/{record_id}.md"


@functools.cache
def _kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@functools.cache
def _findings() -> tuple[tuple[str, Finding], ...]:
    found = []
    for path in FILES:
        for finding in check_source(path.read_text(encoding="utf-8")).findings:
            found.append((str(path.relative_to(ANALYSIS)), finding))
    return tuple(found)


def test_the_allowed_names_are_the_rules() -> None:
    assert set(IDENTIFIERS) == {"errknow-ls", *(rule.name for rule in RULES)}


def test_every_rule_has_findings_to_hover() -> None:
    assert {f.code for _, f in _findings()} == {rule.code for rule in RULES}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hover_leads_with_the_finding_then_the_preferred_fix_then_why(lang: str) -> None:
    for where, english in _findings():
        finding = localized(english, lang)
        record = _kb().get(finding.record_id)
        assert record is not None
        text = hover_text(finding, record, lang, markdown=True, torch="2.13.0", rest=rest_uri(record.id))
        lead, rule = text.split(SEPARATOR, 1)
        assert len(as_read(lead)) < LEAD_CHARS, (where, len(as_read(lead)), lead)
        assert lead.endswith(f"[`errknow-ls explain {record.id}`]({rest_uri(record.id)})"), lead
        chosen = actions.preferred(finding.fixes)
        others = [lead.index(actions.menu_title(f, lang)) for f in finding.fixes if f is not chosen]
        reason = lead.index(why(finding.code, lang))
        if chosen is not None:  # the finding, the preferred fix, why, the other fixes
            order = [
                lead.index(finding.message),
                lead.index(actions.menu_title(chosen, lang)),
                reason,
                *others,
            ]
        else:  # nothing preferred: the finding, the fixes, why
            order = [lead.index(finding.message), *others, reason]
        assert order == sorted(order), (where, lead)
        for fix in finding.fixes:  # each fix with its measured rate, as the record has it
            if fix.workaround is not None:
                workaround = record.workarounds[fix.workaround]
                rate = rate_text(workaround.success_rate, workaround.sources, lang, failing=False)
                assert f"{actions.menu_title(fix, lang)} — {rate}" in lead, (where, lead)
            if fix is chosen and proven_by(fix.title):  # the preferred fix: the programs it was proven on
                assert LABELS[lang]["proven"].format(n=proven_by(fix.title)) in lead, (where, lead)
        assert text.count(EXCEPTION) <= 1, where  # the exception's text once
        assert "Related errors" not in text and record.root_cause not in text, where
        assert rule == documentation(finding.code, lang).replace(_why_section(finding.code, lang), "").strip()


def _why_section(code: str, lang: str) -> str:
    doc = documentation(code, lang)
    heading = "### 为什么有问题？" if lang == "zh" else "### Why is this bad?"  # noqa: RUF001
    start = doc.index(heading)
    return doc[start : doc.index("### ", start + len(heading))]


def test_each_rule_says_why_its_own_pattern_raises() -> None:
    reasons = {rule.code: why(rule.code) for rule in RULES}
    assert all(reasons.values()) and len(set(reasons.values())) == len(RULES)
    assert all("accumulation" not in reason for reason in reasons.values())


def test_hover_and_menu_state_applicability_the_same_way() -> None:
    for where, finding in _findings():
        text = hover_text(finding, _kb().get(finding.record_id), "en", markdown=True)
        for fix in finding.fixes:
            if fix.applicability == Applicability.DISPLAY_ONLY:
                continue
            title = actions.menu_title(fix, "en")
            assert title.endswith(f"({fix.applicability.value})"), title
            assert title in text, where


def test_chinese_leaves_no_english_sentence() -> None:
    for where, english in _findings():
        finding = localized(english, "zh")
        shown = [
            finding.message,
            *(related.message for related in finding.related),
            *(actions.menu_title(fix, "zh") for fix in finding.fixes),
            hover_text(finding, _kb().get(finding.record_id), "zh", markdown=True, torch="2.13.0"),
        ]
        for text in shown:
            assert english_left(text) == [], (where, text)
    menu = actions.TITLES["zh"]
    assert english_left(f"{menu['disable'].format(code='EK001')} {menu['fix_all']}") == []


def test_the_check_for_english_finds_english() -> None:
    assert english_left("在这一行 Keep the graph for the second pass `retain_graph=True`") == [
        "Keep the graph for the second pass"
    ]
    assert (
        english_left("`double-backward` 在 torch 2.13 中 detach `h`, 见 [DCGAN 示例](https://x.y/a b c)")
        == []
    )
    # A plain-text hover's link: the command and the file's URI, as they are; prose after them is read.
    plain = "更多 errknow-ls explain pytorch/backward-through-freed-graph (file:///c/backward-through-freed-graph.md)"
    assert english_left(plain) == []
    assert english_left(f"{plain} Keep the graph") == ["Keep the graph"]


UNEXPLAINED = """\
Traceback (most recent call last):
  File "/mnt/job/step.py", line 5, in step
    loss.backward()
ZeroDivisionError: division by zero
"""
"""A traceback no record explains, raised on step.py's line 5."""


def _without_quotes(text: str, quoted: list[str]) -> str:
    """``text`` without the program's own output it quotes (torch's message, shortened or not)."""
    for line in sorted(quoted, key=len, reverse=True):
        text = text.replace(line, " ").replace(line[: output_diagnostics.MESSAGE_CHARS - 1] + "…", " ")
    return text


def _origins(found: list[types.Diagnostic]) -> list[str]:
    return [origin for d in found for origin in (d.data or {}).get("runtime", {}).get("origins", [])]


@pytest.mark.parametrize("profile", ["neovim-0.11"], indirect=True)
async def test_chinese_runtime_diagnostics_leave_no_english_sentence(session: Session) -> None:
    """What runs show in ``zh``: on a log's lines and on the user's, from a log document and from
    terminals (a numbered one, and a Neovim ``:terminal`` of its own), their related places and
    hovers — outside the program's own output they quote, no English sentence."""
    source = workspace_source(session)
    (session.root / "step.py").write_text(STEP, encoding="utf-8")
    await session.start(locale="zh-cn")
    log = BARE_LOG.splitlines()[1] + "\n" + CAPTURE  # `[rank1]: RuntimeError: CUDA error: …`
    log_uri = open_log(session, "train_run.log", log)
    step_uri = session.uri("step.py")
    # What VS Code sends of one command: its output, without the prompt after it.
    one_command = traceback(str(source), 33).replace("$ \n", "")
    run_output(session, "vscode-terminal://1/bash?run=1", one_command)
    own = f"term://{session.root}//7:python step.py"
    run_output(session, own, UNEXPLAINED, terminal=None, cwd=str(session.root))
    run_output(session, own, end=True, exit_code=1, terminal=None, cwd=str(session.root))
    on_log = await shown(session, log_uri, lambda found: len(found) == 2, is_open=True)
    (on_source,) = await shown(session, source.as_uri(), lambda found: len(_origins(found)) == 2)
    on_step = await shown(session, step_uri, bool)
    printed = [line for line in (log + UNEXPLAINED).splitlines() if ": " in line and "File " not in line]
    quoted = [*printed, *(line.split("]: ", 1)[-1] for line in printed)]  # without torchrun's `[rank1]: `
    shown_texts = [
        text
        for diagnostic in [*on_log, on_source, *on_step]
        for text in (
            diagnostic.message,
            *(related.message for related in diagnostic.related_information or []),
        )
    ]
    for uri, line in [
        (log_uri, 0),  # the error line logged without a traceback
        (log_uri, MESSAGE_LINE + 1),  # the traceback's message, one line further down here
        (source.as_uri(), 32),
        (step_uri, STEP_LINE),
    ]:
        hover = await watching_hover(session, uri, line)
        assert hover is not None, (uri, line)
        shown_texts.append(hover)
    assert any("终端 2" in text for text in shown_texts) and any(
        "`python step.py`" in text for text in shown_texts
    )
    assert any(LABELS["zh"]["no_record"] in text for text in shown_texts)
    assert any(LABELS["zh"]["bare"] in text for text in shown_texts)
    for text in shown_texts:
        assert english_left(_without_quotes(text, quoted)) == [], text
