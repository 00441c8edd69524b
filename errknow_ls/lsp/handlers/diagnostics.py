"""Pull diagnostics (LSP 3.17), for clients that ask; the others get them pushed (see publishing)."""

from __future__ import annotations

from lsprotocol import types

from errknow_ls.lsp import publishing
from errknow_ls.lsp.checking import Result
from errknow_ls.lsp.languageserver import ErrknowServer
from errknow_ls.lsp.output import diagnostics as output_diagnostics
from errknow_ls.lsp.session import Session
from errknow_ls.lsp.snapshots import is_open

OPTIONS = types.DiagnosticOptions(
    identifier="errknow", inter_file_dependencies=False, workspace_diagnostics=True
)
DocumentReport = types.FullDocumentDiagnosticReport | types.UnchangedDocumentDiagnosticReport
WorkspaceReport = (
    types.WorkspaceFullDocumentDiagnosticReport | types.WorkspaceUnchangedDocumentDiagnosticReport
)


def register(server: ErrknowServer, session: Session) -> None:
    server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, OPTIONS)(session.bind(document_diagnostic))
    server.feature(types.WORKSPACE_DIAGNOSTIC)(session.bind(workspace_diagnostic))


async def document_diagnostic(session: Session, params: types.DocumentDiagnosticParams) -> DocumentReport:
    uri = params.text_document.uri
    result = await publishing.current(session, uri) or publishing.closed_file_result(session, uri)
    result_id = f"{result.serial if result else 0}.{session.output.result_id(uri)}"
    if params.previous_result_id == result_id:
        return types.UnchangedDocumentDiagnosticReport(result_id=result_id)
    items = (
        output_diagnostics.merged(session, result) if result else output_diagnostics.diagnostics(session, uri)
    )
    return types.FullDocumentDiagnosticReport(items=items, result_id=result_id)


def workspace_diagnostic(
    session: Session, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    """Files that are not open, as last checked; a file gone since the last pull is reported empty."""
    publishing.pull_workspace_now(session)
    previous = {p.uri: p.value for p in params.previous_result_ids}
    results = [
        r for r in session.checks.stored_all() if r.version is None and not is_open(session.workspace, r.uri)
    ]
    items = [_report(session, result, previous.get(result.uri)) for result in results]
    seen = {result.uri for result in results}
    items += [
        types.WorkspaceFullDocumentDiagnosticReport(
            uri=uri,
            items=output_diagnostics.diagnostics(session, uri),
            result_id=f"0.{session.output.result_id(uri)}",
            version=None,
        )
        for uri in sorted(session.output.uris() - seen)
        if not is_open(session.workspace, uri)
    ]
    seen |= session.output.uris()
    gone = {uri for uri in previous if not is_open(session.workspace, uri)} - seen
    items += [
        types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[], version=None) for uri in sorted(gone)
    ]
    return types.WorkspaceDiagnosticReport(items=items)


def _report(session: Session, result: Result, previous: str | None) -> WorkspaceReport:
    result_id = f"{result.serial}.{session.output.result_id(result.uri)}"
    if previous == result_id:
        return types.WorkspaceUnchangedDocumentDiagnosticReport(
            uri=result.uri, result_id=result_id, version=None
        )
    return types.WorkspaceFullDocumentDiagnosticReport(
        uri=result.uri, items=output_diagnostics.merged(session, result), result_id=result_id, version=None
    )
