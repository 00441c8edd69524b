"""Hover on a finding: what happened here, explained from its record, in the client's language."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.analysis.rules import documentation
from errknow_ls.core import Finding
from errknow_ls.core.environment import torch_version
from errknow_ls.kb.explain import Context, QuickFix, render
from errknow_ls.lsp import publishing, runtime
from errknow_ls.lsp.convert import Positions
from errknow_ls.lsp.server import ErrknowServer
from errknow_ls.lsp.snapshots import open_document


def register(server: ErrknowServer) -> None:
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)


async def hover(ls: ErrknowServer, params: types.HoverParams) -> types.Hover | None:
    result = await publishing.current(ls, params.text_document.uri)
    document = open_document(ls.workspace, result.uri) if result else None
    if result is None or document is None:
        return runtime.hover(ls, params.text_document.uri, params.position, _markdown(ls))
    positions = Positions(document.source, ls.workspace.position_encoding or types.PositionEncodingKind.Utf16)
    here = positions.from_client(params.position)
    finding = next((f for f in result.findings if f.span.start <= here <= f.span.end), None)
    if finding is None:
        return runtime.hover(ls, params.text_document.uri, params.position, _markdown(ls))
    markdown = _markdown(ls)
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    text = explain(ls, finding, markdown)
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=text), range=positions.to_range(finding.span)
    )


def _markdown(ls: ErrknowServer) -> bool:
    """Markdown unless the client's ``hover.contentFormat`` leaves it out."""
    caps = ls.client_capabilities.text_document
    formats = caps.hover.content_format if caps and caps.hover else None
    return not formats or types.MarkupKind.Markdown in formats


def explain(ls: ErrknowServer, finding: Finding, markdown: bool) -> str:
    """The record's explanation of a finding, then the rule's own documentation."""
    here = (
        f"`{finding.code}` ({finding.name}): {finding.message}"
        if markdown
        else f"{finding.code} ({finding.name}): {finding.message}"
    )
    rule = documentation(finding.code)
    record = ls.kb.get(finding.record_id)
    if record is None:
        return f"{here}\n\n{rule}"
    context = Context(
        here=here,
        fixes=[QuickFix(f.title, f.applicability.value, f.workaround) for f in finding.fixes],
        torch_version=torch_version(ls.roots(), ls.settings.interpreter),
        related=ls.kb.signatures,
    )
    return f"{render(record, context, ls.locale, markdown)}\n\n---\n\n{rule}"
