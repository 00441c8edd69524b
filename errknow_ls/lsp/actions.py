"""Code actions, built from ``Diagnostic.data`` (never re-analysing): quick fixes, "disable for this
line", and fix-all (safe fixes only). Clients that resolve lazily get the edit on ``codeAction/resolve``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lsprotocol import types
from pydantic import BaseModel, ConfigDict, ValidationError

from errknow_ls.core import Applicability, Finding, Fix, OverlappingEdits, Span, apply_edits
from errknow_ls.core.suppression import add_code
from errknow_ls.lsp import convert

FIX_ALL = "source.fixAll.errknow"
KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL]
TITLES = {
    "en": {
        Applicability.SAFE: "{title} (safe)",
        Applicability.UNSAFE: "{title} (unsafe)",
        "disable": "Disable {code} for this line",
        "fix_all": "errknow: apply all safe fixes",
    },
    "zh": {
        Applicability.SAFE: "{title}（安全）",  # noqa: RUF001
        Applicability.UNSAFE: "{title}（不安全）",  # noqa: RUF001
        "disable": "在这一行禁用 {code}",
        "fix_all": "errknow：应用所有安全修复",  # noqa: RUF001
    },
}
"""What the menu says, in each language; a fix's title says how safe it is, as hover repeats it."""


def menu_title(fix: Fix, lang: str) -> str:
    """A fix's title as the quick-fix menu and hover show it: its applicability stated."""
    template = TITLES[lang].get(fix.applicability, "{title}")
    return template.format(title=fix.title)


def preferred(fixes: Sequence[Fix]) -> Fix | None:
    """The fix the menu prefers (``isPreferred``): the first safe one; an unsafe fix never is."""
    return next((f for f in fixes if f.applicability == Applicability.SAFE), None)


class Pending(BaseModel):
    """``CodeAction.data`` for clients that resolve edits lazily."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    uri: str
    version: int | None
    fix: convert.FixField | None = None
    fix_all: bool = False

    @classmethod
    def parse(cls, raw: object) -> Pending | None:
        try:
            return cls.model_validate(raw)
        except ValidationError:
            return None


@dataclass(frozen=True, slots=True)
class Target:
    """The document the actions are for, as it is now, and what the client can take."""

    uri: str
    version: int | None
    positions: convert.Positions
    source: str
    lazy: bool
    """The client resolves ``edit`` on ``codeAction/resolve``."""
    document_changes: bool
    """The client takes versioned ``documentChanges`` (else plain ``changes``)."""
    language: str = "en"
    """``en`` or ``zh``: the language of the titles."""

    def edit(self, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        if not self.document_changes:
            return types.WorkspaceEdit(changes={self.uri: edits})
        identifier = types.OptionalVersionedTextDocumentIdentifier(uri=self.uri, version=self.version)
        return types.WorkspaceEdit(
            document_changes=[types.TextDocumentEdit(text_document=identifier, edits=edits)]
        )

    def fix_edit(self, fix: Fix) -> types.WorkspaceEdit:
        return self.edit(convert.to_text_edits(self.positions, fix))


def wanted(only: Sequence[str] | None, kind: str) -> bool:
    """``only`` asks for ``kind`` itself or a kind it falls under (``source`` covers ``source.fixAll.x``)."""
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


def current_data(
    target: Target, diagnostics: Iterable[types.Diagnostic]
) -> list[tuple[types.Diagnostic, convert.DiagnosticData]]:
    """The client's diagnostics whose data is for this version of this document (stale data is dropped)."""
    found = []
    for diagnostic in diagnostics:
        data = convert.parse_data(diagnostic.data)
        if data is not None and data.uri == target.uri and data.version == target.version:
            found.append((diagnostic, data))
    return found


def in_range(
    diagnostics: Iterable[types.Diagnostic], findings: Iterable[Finding], span: Span
) -> list[tuple[types.Diagnostic, convert.DiagnosticData]]:
    """Our own diagnostics on the lines of ``span``: for clients that send none back (ALE)."""
    found = []
    # The checker's limit notes follow the findings' diagnostics, without a finding or a fix.
    for diagnostic, finding in zip(diagnostics, findings, strict=False):
        data = convert.parse_data(diagnostic.data)
        if (
            data is not None
            and finding.span.start.line <= span.end.line
            and span.start.line <= finding.span.end.line
        ):
            found.append((diagnostic, data))
    return found


def quick_fixes(
    target: Target, diagnostic: types.Diagnostic, data: convert.DiagnosticData
) -> list[types.CodeAction]:
    actions = []
    chosen = preferred(data.fixes)
    for fix in data.fixes:
        if fix.applicability == Applicability.DISPLAY_ONLY:
            continue
        action = types.CodeAction(
            title=menu_title(fix, target.language),
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=fix is chosen,
        )
        if target.lazy:
            action.data = Pending(uri=target.uri, version=target.version, fix=fix).model_dump(mode="json")
        else:
            action.edit = target.fix_edit(fix)
        actions.append(action)
    return actions


def disable_for_line(
    target: Target, diagnostic: types.Diagnostic, data: convert.DiagnosticData
) -> types.CodeAction:
    """Add the code to the line's ``# errknow: ignore[...]``, or append one."""
    change = add_code(target.positions.line(data.line), data.code)
    span = Span.of(data.line, change.start, data.line, change.end)
    edit = types.TextEdit(range=target.positions.to_range(span), new_text=change.content)
    return types.CodeAction(
        title=TITLES[target.language]["disable"].format(code=data.code),
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=target.edit([edit]),
    )


def for_diagnostics(
    target: Target, found: Iterable[tuple[types.Diagnostic, convert.DiagnosticData]]
) -> list[types.CodeAction]:
    """Each diagnostic's quick fixes, then one "disable" per code and line."""
    fixes: list[types.CodeAction] = []
    disables: dict[str, types.CodeAction] = {}
    for diagnostic, data in found:
        fixes += quick_fixes(target, diagnostic, data)
        disables.setdefault(f"{data.code}:{data.line}", disable_for_line(target, diagnostic, data))
    return [*fixes, *disables.values()]


def safe_fixes(source: str, findings: Iterable[Finding]) -> list[Fix]:
    """Each finding's first safe fix, skipping any that would overlap one already taken."""
    chosen: list[Fix] = []
    for finding in findings:
        fix = preferred(finding.fixes)
        if fix is None:
            continue
        try:
            apply_edits(source, [e for f in [*chosen, fix] for e in f.edits])
        except OverlappingEdits:
            continue
        chosen.append(fix)
    return chosen


def fix_all_edit(target: Target, findings: Iterable[Finding]) -> types.WorkspaceEdit | None:
    fixes = safe_fixes(target.source, findings)
    if not fixes:
        return None
    return target.edit([e for fix in fixes for e in convert.to_text_edits(target.positions, fix)])


def fix_all(target: Target, findings: Sequence[Finding]) -> types.CodeAction | None:
    edit = fix_all_edit(target, findings)
    if edit is None:
        return None
    action = types.CodeAction(title=TITLES[target.language]["fix_all"], kind=FIX_ALL)
    if target.lazy:
        action.data = Pending(uri=target.uri, version=target.version, fix_all=True).model_dump(mode="json")
    else:
        action.edit = edit
    return action
