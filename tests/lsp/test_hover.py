"""Hover on a finding, once per editor profile: the record's explanation, in the client's language,
format and torch version."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types

from tests.lsp.conftest import CACHE
from tests.lsp.session import BUGGY, BUGGY_LINE, CALL, Session


async def _hover(session: Session, uri: str) -> types.MarkupContent:
    line = BUGGY.splitlines()[BUGGY_LINE]
    position = types.Position(BUGGY_LINE, session.column(line, line.index(CALL) + 2))
    result = await session.client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert result is not None and isinstance(result.contents, types.MarkupContent)
    start = line.index(CALL)
    assert result.range == types.Range(
        types.Position(BUGGY_LINE, session.column(line, start)),
        types.Position(BUGGY_LINE, session.column(line, start + len(CALL))),
    )
    return result.contents


def _explanation(lead: str) -> Path:
    """The file the hover's link to the whole record opens."""
    link = re.search(r"\[`errknow-ls explain pytorch/backward-through-freed-graph`\]\((file:[^)]+)\)", lead)
    assert link is not None, lead
    return Path(unquote(urlparse(link.group(1)).path))


def _fake_torch(root: Path, version: str) -> None:
    info = root / ".venv" / "lib" / "python3.11" / "site-packages" / f"torch-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n", encoding="utf-8"
    )


async def test_hover_leads_with_the_finding_its_fixes_and_why(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    contents = await _hover(session, uri)
    text = contents.value
    assert contents.kind == types.MarkupKind.Markdown
    lead, rule = text.split("\n\n---\n\n")
    here = "**EK001** `double-backward`: `loss` is backwarded a second time"
    # Nothing here is safe, so nothing is preferred: the fixes, titled as the menu titles them, and
    # each with how its record workaround fares on the reproductions.
    fix = "Keep the graph for the second pass: `retain_graph=True` at line 7 (unsafe)"
    assert f"**Fixes (none is safe to apply unread)**\n- {fix} — runs clean in 1 of 5 reproductions" in lead
    why = "**Why**: A backward frees the tensors its graph saved"  # this rule's pattern, not the record's
    assert lead.index(here) < lead.index(fix) < lead.index(why)
    assert "gradient accumulation" not in text and "Related errors" not in text
    assert text.count("Trying to backward through the graph a second time") == 1
    # The rest of the record is a link the editor opens: a file that explains it whole.
    explanation = _explanation(lead)
    whole = explanation.read_text(encoding="utf-8")
    assert whole.startswith("# pytorch/backward-through-freed-graph\n")
    assert "**What not to do**" in whole and "**What to do**" in whole and "Trying to backward" in whole
    # The record's Why states the mechanism (issue 16), not gradient accumulation.
    assert "**Why**\n\nbackward() and autograd.grad() free, as they go, the tensors" in whole
    assert "accumulation" not in whole
    assert explanation.is_relative_to(CACHE)
    assert len(lead) < 1200
    assert rule.startswith("## double-backward (EK001)") and "### What it does" in rule
    assert "### Why is this bad?" not in rule  # said once, above


@pytest.mark.parametrize(
    ("version", "verdict"), [("2.3.1", "is among them"), ("1.4.0", "has not been checked")]
)
async def test_hover_says_whether_the_workspace_torch_is_affected(
    session: Session, version: str, verdict: str
) -> None:
    _fake_torch(session.root, version)
    await session.start()
    uri = session.open("train.py", BUGGY)
    assert f"your torch {version} {verdict}" in (await _hover(session, uri)).value


@pytest.mark.parametrize("setting", [{}, {"locale": "auto"}])
async def test_hover_in_the_client_locale(session: Session, setting: dict[str, str]) -> None:
    await session.start(locale="zh-CN", options=setting)
    uri = session.open("train.py", BUGGY)
    text = (await _hover(session, uri)).value
    assert "`loss` 被第二次反向传播：第 7 行的反向传播已经释放了它的计算图" in text  # noqa: RUF001
    assert "为第二次反向传播保留计算图：在第 7 行使用 `retain_graph=True`（不安全）" in text  # noqa: RUF001
    assert "**原因**：反向传播会释放计算图为求梯度而保存的张量" in text  # noqa: RUF001
    assert "## double-backward (EK001)\n\n### 它检查什么" in text
    whole = _explanation(text).read_text(encoding="utf-8")
    assert "**原因**\n\nbackward() 和 autograd.grad() 在遍历计算图时" in whole
    assert "梯度累积" not in whole


async def test_the_locale_setting_wins_over_the_client_locale(session: Session) -> None:
    await session.start(locale="zh-CN", options={"locale": "en"})
    uri = session.open("train.py", BUGGY)
    assert "**Why**: A backward frees" in (await _hover(session, uri)).value


async def test_hover_is_plain_text_when_the_client_has_no_markdown(session: Session) -> None:
    assert session.caps.text_document is not None
    session.caps.text_document.hover = types.HoverClientCapabilities(
        content_format=[types.MarkupKind.PlainText]
    )
    await session.start()
    uri = session.open("train.py", BUGGY)
    contents = await _hover(session, uri)
    assert contents.kind == types.MarkupKind.PlainText
    explanation = contents.value.split("\n---\n")[0]
    assert explanation.startswith("EK001 double-backward: ")
    assert "WHY: A backward frees" in explanation and "FIXES (NONE IS SAFE TO APPLY UNREAD)" in explanation
    assert "**" not in explanation and "](" not in explanation
    assert "errknow-ls explain pytorch/backward-through-freed-graph" in explanation


async def test_no_hover_away_from_a_finding(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    result = await session.client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 0))
    )
    assert result is None
