"""Diagnostics over stdio, once per editor profile: client-unit ranges, push or pull, versions, close."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.session import BUGGY, BUGGY_LINE, CALL, CLEAN, Session
from tests.support import STOPPED_DEF_LINE, STOPPED_NOTE, stopped_by_the_budget


async def test_the_diagnostic_is_on_the_exact_call_in_client_units(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    (diagnostic,) = await session.diagnostics(uri)
    line = BUGGY.splitlines()[BUGGY_LINE]
    start = line.index(CALL)
    assert diagnostic.range == types.Range(
        types.Position(BUGGY_LINE, session.column(line, start)),
        types.Position(BUGGY_LINE, session.column(line, start + len(CALL))),
    )
    assert (diagnostic.code, diagnostic.source, diagnostic.severity) == (
        "EK001",
        "errknow",
        types.DiagnosticSeverity.Error,
    )
    assert "`loss` is backwarded a second time" in diagnostic.message
    assert diagnostic.code_description is not None and diagnostic.code_description.href.startswith("https://")
    assert diagnostic.related_information is not None
    (related,) = diagnostic.related_information
    assert related.location.uri == uri and related.location.range.start == types.Position(6, 0)
    assert diagnostic.data is not None
    assert diagnostic.data["code"] == "EK001" and diagnostic.data["version"] == 1 and diagnostic.data["fixes"]


async def test_an_edit_in_client_units_after_an_emoji_lands_where_the_client_meant(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", CLEAN)
    assert await session.diagnostics(uri) == []
    line = CLEAN.splitlines()[BUGGY_LINE]
    end = types.Position(BUGGY_LINE, session.column(line, len(line)))
    session.edit(uri, types.TextDocumentContentChangePartial(range=types.Range(end, end), text=f"; {CALL}"))
    (diagnostic,) = await session.diagnostics(uri)
    edited = BUGGY.splitlines()[BUGGY_LINE]
    assert diagnostic.range.start.character == session.column(edited, edited.index(CALL))


async def test_an_edit_after_a_form_feed_lands_on_the_line_the_client_meant(session: Session) -> None:
    """A form feed (a page break) is inside a line for editors and LSP, not a line break."""
    text = "# page one\x0c# page two\n" + CLEAN
    uri = session.uri("train.py")
    await session.start()
    session.open("train.py", text)
    assert await session.diagnostics(uri) == []
    line = CLEAN.splitlines()[BUGGY_LINE]
    end = types.Position(BUGGY_LINE + 1, session.column(line, len(line)))
    session.edit(uri, types.TextDocumentContentChangePartial(range=types.Range(end, end), text=f"; {CALL}"))
    (diagnostic,) = await session.diagnostics(uri)
    edited = BUGGY.splitlines()[BUGGY_LINE]
    column = session.column(edited, edited.index(CALL))
    assert diagnostic.range.start == types.Position(BUGGY_LINE + 1, column)


async def test_a_function_the_budget_stopped_is_shown_at_its_def(session: Session) -> None:
    """What ``check`` prints as ``note: not fully checked: …`` is an information diagnostic on the
    line of the ``def`` (as pyright marks code too complex to analyze), without a code or a fix."""
    await session.start()
    text = stopped_by_the_budget()
    uri = session.open("train.py", text)
    (note,) = await session.diagnostics(uri)
    assert note.severity == types.DiagnosticSeverity.Information and note.source == "errknow"
    assert note.message == f"not fully checked: {STOPPED_NOTE}"
    line = STOPPED_DEF_LINE - 1
    assert note.range == types.Range(types.Position(line, 0), types.Position(line, len("def train():")))
    assert note.code is None and note.data is None
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=note.range,
        context=types.CodeActionContext(diagnostics=[note]),
    )
    actions = await session.client.text_document_code_action_async(params)
    assert not [a for a in actions or [] if isinstance(a, types.CodeAction) and a.diagnostics]


async def test_a_lone_surrogate_is_said_and_the_rest_checked(session: Session) -> None:
    """An editor's string may hold half of a UTF-16 pair (JSON spells it ``\\ud800``); Python
    cannot read such a text, and it was checked as nothing at all, in silence. Now it is checked as
    if the surrogate were U+FFFD (positions stay put), with a note on the surrogate's line."""
    await session.start()
    text = "half = '\ud800'  # the other half is gone\n" + BUGGY
    uri = session.open("train.py", text)
    note, finding = sorted(await session.diagnostics(uri), key=lambda d: d.range.start.line)
    assert note.severity == types.DiagnosticSeverity.Information and note.range.start.line == 0
    assert note.message.startswith("not fully checked: a lone surrogate, U+D800: half of a UTF-16 pair")
    assert "checked as if it were U+FFFD" in note.message
    line = BUGGY.splitlines()[BUGGY_LINE]
    assert (finding.code, finding.range.start) == (
        "EK001",
        types.Position(BUGGY_LINE + 1, session.column(line, line.index(CALL))),
    )
    session.change(uri, BUGGY)
    (finding,) = await session.diagnostics(uri)  # the note goes with the surrogate
    assert finding.code == "EK001"


async def test_a_document_gets_push_or_pull_never_both(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    assert len(await session.diagnostics(uri)) == 1
    session.change(uri, CLEAN)
    assert await session.diagnostics(uri) == []
    mine = [p for p in session.published if p.uri == uri]
    if session.pulls:
        assert mine == []
    else:
        assert [(p.version, len(p.diagnostics)) for p in mine] == [(1, 1), (2, 0)]


async def test_fast_edits_never_publish_a_stale_result(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    for _ in range(10):
        session.change(uri, BUGGY)
        session.change(uri, CLEAN)
    assert await session.diagnostics(uri) == []
    versions = [p.version or 0 for p in session.published if p.uri == uri]
    assert versions == sorted(versions)  # and the last one, for version 21, is empty
    if not session.pulls:
        assert session.published[-1].version == 21 and not session.published[-1].diagnostics


async def test_close_clears(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    assert await session.diagnostics(uri)
    session.close(uri)
    if not session.pulls:
        cleared = await session.published_for(uri, lambda p: p.version is None)
        assert not cleared.diagnostics
    # the server forgot it: a pull now (a client's mistake) answers with nothing
    assert await session.pull(uri) == []


async def test_a_file_pushed_while_closed_is_pulled_once_open(session: Session) -> None:
    (session.root / "train.py").write_text(BUGGY, encoding="utf-8")
    await session.start()
    await session.progress_ended()
    uri = session.uri("train.py")
    pushed = [p for p in session.published if p.uri == uri]
    if session.pulls_workspace:
        assert pushed == []  # the workspace is pulled too
        return
    assert [len(p.diagnostics) for p in pushed] == [1]
    session.open("train.py", BUGGY)
    assert len(await session.diagnostics(uri)) == 1
    if session.pulls:
        cleared = await session.published_for(uri, lambda p: not p.diagnostics)
        assert session.published[-1] is cleared  # pushed, then taken back: never both


async def test_a_request_with_invalid_params_gets_an_error_and_the_server_stays_up(session: Session) -> None:
    await session.start()
    with pytest.raises(JsonRpcInvalidParams, match="invalid params for textDocument/hover"):
        await session.raw_request(types.TEXT_DOCUMENT_HOVER, {"textDocument": 42, "position": "here"})
    uri = session.open("train.py", BUGGY)
    assert len(await session.diagnostics(uri)) == 1
