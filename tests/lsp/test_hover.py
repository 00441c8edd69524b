"""Hover on a finding, once per editor profile: the record's explanation, in the client's language,
format and torch version."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

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


def _fake_torch(root: Path, version: str) -> None:
    info = root / ".venv" / "lib" / "python3.11" / "site-packages" / f"torch-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n", encoding="utf-8"
    )


async def test_hover_explains_the_finding_from_its_record(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    contents = await _hover(session, uri)
    text = contents.value
    assert contents.kind == types.MarkupKind.Markdown
    assert "`EK001` (double-backward): `loss` is backwarded a second time" in text  # what happened here
    assert "Calling backward() twice on the same graph" in text  # the root cause
    assert "**What not to do**" in text and "(fails in 4 of 5 reproductions)" in text
    do = text[text.index("**What to do**") :]
    # Each fix says where it applies and how it fares there; ranked by that rate, then by its reach.
    first, last = (
        "applies to 3 of 5 reproductions; runs clean in 3 of 3",
        "runs clean in 1 of 5 reproductions",
    )
    assert (
        do.index(first) < do.index("applies to 1 of 5 reproductions; runs clean in 1 of 1") < do.index(last)
    )
    assert "quick fix: Keep the graph for the second pass" in do  # which workaround the fix applies
    assert "Affected torch versions: 1.10" in text
    assert "[https://pytorch.org/docs/stable/autograd.html" in text
    assert (
        "Record `pytorch/grad-accumulation-required-grad-false`: verified, confidence 85%, 5 evidence" in text
    )
    assert "### What it does" in text  # and the rule's own documentation


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


async def test_hover_in_the_client_locale_falls_back_per_field(session: Session) -> None:
    await session.start(locale="zh-CN")
    uri = session.open("train.py", BUGGY)
    text = (await _hover(session, uri)).value
    assert "**不要这样做**" in text and "在同一个计算图上第二次调用" in text
    assert "Add retain_graph=True to every backward()" in text  # no Chinese for dead ends: English


async def test_the_locale_setting_wins_over_the_client_locale(session: Session) -> None:
    await session.start(locale="zh-CN", options={"locale": "en"})
    uri = session.open("train.py", BUGGY)
    assert "**What not to do**" in (await _hover(session, uri)).value


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
    assert "WHAT NOT TO DO" in explanation
    assert "**" not in explanation and "](" not in explanation
    assert "Docs: https://pytorch.org/docs/stable/autograd.html" in explanation


async def test_no_hover_away_from_a_finding(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    result = await session.client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 0))
    )
    assert result is None
