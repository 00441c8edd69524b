"""Hover on a finding: what happened here, explained from its record, in the client's language."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.analysis.rules import documentation
from errknow_ls.core import Finding
from errknow_ls.core.environment import torch_version
from errknow_ls.kb.explain import Context, QuickFix, render
from errknow_ls.lsp import publishing
from errknow_ls.lsp.convert import Positions
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from errknow_ls.lsp.session import Session
from errknow_ls.lsp.snapshots import open_document


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
    """The record's explanation of a finding, then the rule's own documentation."""
    here = (
        f"`{finding.code}` ({finding.name}): {finding.message}"
        if markdown
        else f"{finding.code} ({finding.name}): {finding.message}"
    )
    rule = documentation(finding.code)
    record = session.kb.get(finding.record_id)
    if record is None:
        return f"{here}\n\n{rule}"
    context = Context(
        here=here,
        fixes=[QuickFix(f.title, f.applicability.value, f.workaround) for f in finding.fixes],
        torch_version=torch_version(session.roots(), session.settings.interpreter),
        related=session.kb.signatures,
    )
    return f"{render(record, context, session.locale, markdown)}\n\n---\n\n{rule}"
