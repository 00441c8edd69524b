"""Hover on a finding: what happened here, explained from its record, in the client's language."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.core import Applicability, Finding
from errknow_ls.core.environment import torch_version
from errknow_ls.core.translation import language
from errknow_ls.kb.explain import Context, QuickFix, brief
from errknow_ls.kb.model import Record
from errknow_ls.lsp import actions, publishing
from errknow_ls.lsp.convert import Positions
from errknow_ls.lsp.explanations import explanation_uri
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from errknow_ls.lsp.session import Session
from errknow_ls.lsp.snapshots import open_document

SEPARATOR = "\n\n---\n\n"
"""Between the finding explained and the rule's documentation."""


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.TEXT_DOCUMENT_HOVER)(session.bind(hover))


async def hover(session: Session, params: types.HoverParams) -> types.Hover | None:
    result = await publishing.current(session, params.text_document.uri)
    document = open_document(session.workspace, result.uri) if result else None
    if result is None or document is None:
        return output_diagnostics.hover(
            session, params.text_document.uri, params.position, _markdown(session)
        )
    positions = Positions(
        document.source, session.workspace.position_encoding or types.PositionEncodingKind.Utf16
    )
    here = positions.from_client(params.position)
    finding = next((f for f in result.findings if f.span.start <= here <= f.span.end), None)
    if finding is None:
        return output_diagnostics.hover(
            session, params.text_document.uri, params.position, _markdown(session)
        )
    markdown = _markdown(session)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    text = explain(session, finding, markdown)
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=text), range=positions.to_range(finding.span)
    )


def _markdown(session: Session) -> bool:
    """Markdown unless the client's ``hover.contentFormat`` leaves it out."""
    caps = session.client_capabilities.text_document
    formats = caps.hover.content_format if caps and caps.hover else None
    return not formats or types.MarkupKind.Markdown in formats


def explain(session: Session, finding: Finding, markdown: bool) -> str:
    version = torch_version(session.roots(), session.settings.interpreter)
    record = session.kb.get(finding.record_id)
    rest = explanation_uri(session, record, version) if record is not None else None
    return hover_text(finding, record, session.locale, markdown, version, rest=rest)


def hover_text(
    finding: Finding,
    record: Record | None,
    locale: str | None,
    markdown: bool,
    torch: str | None = None,
    *,
    rest: str | None = None,
) -> str:
    """What happened here, the fix the quick-fix menu prefers, why, the other fixes, a link to the
    rest of the record (``rest``, a file the editor opens), then the rule's own documentation."""
    # The rules' documentation loads the rules: on the first hover, not while the server starts.
    from errknow_ls.analysis.rules import documentation_without_why, why  # noqa: PLC0415
    from errknow_ls.analysis.rules.evidence import proven_by  # noqa: PLC0415

    lang = language(locale)
    here = (
        f"**{finding.code}** `{finding.name}`: {finding.message}"
        if markdown
        else f"{finding.code} {finding.name}: {finding.message}"
    )
    rule = documentation_without_why(finding.code, lang)
    if record is None:
        return f"{here}{SEPARATOR}{rule}"
    chosen = actions.preferred(finding.fixes)
    context = Context(
        here=here,
        why=why(finding.code, lang),
        fixes=[
            QuickFix(
                actions.menu_title(fix, lang),
                fix.workaround,
                offered=fix.applicability != Applicability.DISPLAY_ONLY,
                preferred=fix is chosen,
                proven_by=proven_by(fix.title),
            )
            for fix in finding.fixes
        ],
        torch_version=torch,
        rest=rest,
    )
    return f"{brief(record, context, locale, markdown)}{SEPARATOR}{rule}"
