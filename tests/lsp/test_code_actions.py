"""Code actions, once per editor profile: quick fixes from the diagnostic's data, "disable for this
line", fix-all (safe fixes only), lazy resolve, and stale data dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.lsp.session import BUGGY, BUGGY_LINE, CALL, Session, column

STORED_AFTER_BACKWARD = (
    Path(__file__).parent / "fixtures" / "code-actions" / "states_stored_after_backward.py"
)

FIX_TITLE = "Keep the graph for the second pass: `retain_graph=True` at line 7 (unsafe)"
SAFE_FIXABLE = """\
import torch
from torch import nn

net = nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(3, 4)
for step in range(3):
    out = net(x)
    a = out.pow(2).sum()
    b = out.exp().sum()
    opt.zero_grad()
    a.backward()
    b.backward()
    opt.step()
"""


async def _actions(
    session: Session,
    uri: str,
    diagnostics: list[types.Diagnostic],
    line: int = BUGGY_LINE,
    only: list[str] | None = None,
) -> list[types.CodeAction]:
    """The actions offered, with their edits resolved for clients that resolve lazily."""
    result = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(line, 0), types.Position(line, 1)),
            context=types.CodeActionContext(diagnostics=diagnostics, only=only),
        )
    )
    actions = [a for a in result or [] if isinstance(a, types.CodeAction)]
    resolved = []
    for action in actions:
        if action.kind == types.CodeActionKind.QuickFix and action.title.startswith(
            ("Disable", "在这一行禁用")
        ):
            assert action.edit is not None  # cheap: never deferred
        else:
            assert (action.edit is None) == session.resolves_lazily
        resolved.append(action if action.edit else await session.client.code_action_resolve_async(action))
    return resolved


def _text_edits(session: Session, action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    edit = action.edit
    assert edit is not None
    caps = session.caps.workspace.workspace_edit if session.caps.workspace else None
    if caps and caps.document_changes:
        assert edit.document_changes and edit.changes is None
        (change,) = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri
        return [e for e in change.edits if isinstance(e, types.TextEdit)]
    assert edit.changes is not None and not edit.document_changes  # Neovim 0.11 lists no documentChanges
    return list(edit.changes[uri])


def _apply(session: Session, text: str, edits: list[types.TextEdit]) -> str:
    """Apply single-line edits given in the client's units."""
    lines = text.splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = edit.range.start, edit.range.end
        assert start.line == end.line
        line = lines[start.line]
        chars = [
            next(i for i in range(len(line) + 1) if column(session.encoding, line, i) >= c)
            for c in (start.character, end.character)
        ]
        lines[start.line] = line[: chars[0]] + edit.new_text + line[chars[1] :]
    return "".join(lines)


@pytest.mark.parametrize("empty_context", [False, True], ids=["with-diagnostics", "ale-empty-context"])
async def test_a_quick_fix_and_disable_for_this_line(session: Session, empty_context: bool) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    diagnostics = await session.diagnostics(uri)
    fix, disable = await _actions(session, uri, [] if empty_context else diagnostics)
    assert (fix.title, fix.kind, fix.is_preferred) == (FIX_TITLE, types.CodeActionKind.QuickFix, False)
    assert fix.diagnostics and fix.diagnostics[0].code == "EK001"
    assert disable.title == "Disable EK001 for this line"
    fixed = _apply(session, BUGGY, _text_edits(session, fix, uri))
    assert fixed.splitlines()[BUGGY_LINE - 1] == "loss.backward(retain_graph=True)"
    disabled = _apply(session, BUGGY, _text_edits(session, disable, uri))
    assert disabled.splitlines()[BUGGY_LINE] == 's = "é中文😋 x"; loss.backward()  # errknow: ignore[EK001]'
    session.change(uri, disabled)
    assert await session.diagnostics(uri) == []


async def test_disable_adds_to_an_existing_suppression(session: Session) -> None:
    await session.start()
    text = BUGGY.replace(f"; {CALL}\n", f"; {CALL}  # errknow: ignore[EK002]\n")
    uri = session.open("train.py", text)
    (diagnostic,) = await session.diagnostics(uri)
    disable = (await _actions(session, uri, [diagnostic]))[-1]
    disabled = _apply(session, text, _text_edits(session, disable, uri))
    assert disabled.splitlines()[BUGGY_LINE].endswith("# errknow: ignore[EK002, EK001]")


async def test_data_from_an_older_version_is_dropped(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    old = await session.diagnostics(uri)
    session.change(uri, "# a new first line\n" + BUGGY)
    # the old diagnostic says line 7; the finding is on line 8 now: nothing is offered on line 7
    assert await _actions(session, uri, old) == []
    moved = await _actions(session, uri, old, line=BUGGY_LINE + 1)
    assert [a.title for a in moved] == [
        FIX_TITLE.replace("at line 7", "at line 8"),
        "Disable EK001 for this line",
    ]


async def test_a_lazy_fix_resolved_after_an_edit_is_dropped(session: Session) -> None:
    if not session.resolves_lazily:
        pytest.skip("this client takes edits with the action")
    await session.start()
    uri = session.open("train.py", BUGGY)
    result = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(BUGGY_LINE, 0), types.Position(BUGGY_LINE, 1)),
            context=types.CodeActionContext(diagnostics=await session.diagnostics(uri)),
        )
    )
    fix = next(a for a in result or [] if isinstance(a, types.CodeAction) and a.title == FIX_TITLE)
    session.change(uri, "\n" + BUGGY)
    assert (await session.client.code_action_resolve_async(fix)).edit is None


async def test_fix_all_applies_safe_fixes_only(session: Session) -> None:
    await session.start()
    uri = session.open("multi.py", SAFE_FIXABLE)
    (diagnostic,) = await session.diagnostics(uri)
    assert diagnostic.code == "EK004"
    (fix_all,) = await _actions(session, uri, [], line=0, only=["source.fixAll"])
    assert fix_all.kind == "source.fixAll.errknow"
    texts = sorted(e.new_text for e in _text_edits(session, fix_all, uri))
    assert texts == ["", "(a + b)"]  # the preferred fix only: the other two are left alone
    quick = await _actions(session, uri, [diagnostic], line=12, only=[types.CodeActionKind.QuickFix])
    # (detaching `out` in the first loss is not offered: `a` learns through nothing else, so it
    # would stop training the layer; recomputing `out` and `b` computes what the program did, as
    # nothing but the first backward runs between: safe too, fix_safety rule 15; and keeping the
    # graph of the first backward for the second, two losses whose sum is safe with nothing stepped
    # between, sends what the program wrote: safe, fix_safety rule 17)
    assert [(a.title.rsplit(" ", 1)[-1], a.is_preferred) for a in quick[:3]] == [
        ("(safe)", True),  # the first safe one is preferred, and its title says so, as hover does
        ("(safe)", False),
        ("(safe)", False),
    ]
    assert quick[3].title == "Disable EK004 for this line"


async def test_diagnostics_and_actions_in_chinese(session: Session) -> None:
    await session.start(options={"locale": "zh"})
    uri = session.open("multi.py", SAFE_FIXABLE)
    (diagnostic,) = await session.diagnostics(uri)
    assert diagnostic.code == "EK004"  # the rule's code, as in English
    assert "共享计算图" in diagnostic.message
    assert [r.message for r in diagnostic.related_information or []] == [
        "`a` 的反向传播在这里释放了共享的计算图",
        "计算图的共享部分在这里构建",
    ]
    quick = await _actions(session, uri, [diagnostic], line=12, only=[types.CodeActionKind.QuickFix])
    assert quick[0].title == "把损失相加后只反向传播一次：`(a + b).backward()`（安全）"  # noqa: RUF001
    assert quick[0].is_preferred
    assert [a.title.endswith("（不安全）") for a in quick[1:3]] == [False, False]  # noqa: RUF001
    assert quick[1].title.endswith("（安全）")  # noqa: RUF001
    assert quick[3].title == "在这一行禁用 EK004"


async def test_no_fix_all_without_a_safe_fix(session: Session) -> None:
    await session.start()
    uri = session.open("train.py", BUGGY)
    await session.diagnostics(uri)
    assert await _actions(session, uri, [], only=["source.fixAll.errknow"]) == []


def _shown(diagnostics: list[types.Diagnostic]) -> list[tuple[types.Range, object, str]]:
    """What the editor shows of each diagnostic (its data names the document's version)."""
    return [(d.range, d.code, d.message) for d in diagnostics]


async def test_every_fix_offered_removes_its_error(session: Session) -> None:
    """The server offers only fixes that hold, as ``check --fix`` keeps only those: each quick fix
    offered, applied, leaves a document on which the server no longer reports that error. Where no
    fix holds (the first loop of the fixture: a detach placed after the backward, above the store),
    only "disable" is offered."""
    await session.start()
    text = STORED_AFTER_BACKWARD.read_text(encoding="utf-8")
    uri = session.open("train.py", text)
    diagnostics = await session.diagnostics(uri)
    expected = [i for i, line in enumerate(text.splitlines()) if "# error: [" in line]
    assert [d.range.start.line for d in diagnostics] == expected
    offered = {}
    for diagnostic in diagnostics:
        line = diagnostic.range.start.line
        actions = await _actions(session, uri, [diagnostic], line=line, only=[types.CodeActionKind.QuickFix])
        assert actions[-1].title == f"Disable {diagnostic.code} for this line"
        offered[line] = [(a.title, a.is_preferred) for a in actions[:-1]]
        for action in actions[:-1]:
            session.change(uri, _apply(session, text, _text_edits(session, action, uri)))
            after = await session.diagnostics(uri)
            assert (diagnostic.code, diagnostic.message) not in [(d.code, d.message) for d in after], (
                action.title
            )
            assert len(after) == len(diagnostics) - 1, action.title
            session.change(uri, text)
            assert _shown(await session.diagnostics(uri)) == _shown(diagnostics)
    assert offered == {
        expected[0]: [],
        expected[1]: [
            ("Detach `state` at the start of each iteration (safe)", True),
            ("Reset `state` at the start of each iteration (unsafe)", False),
        ],
    }
